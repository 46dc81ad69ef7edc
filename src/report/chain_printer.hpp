#pragma once

#include "account/usage_split.hpp"
#include "ingest/loader.hpp"
#include "model/request.hpp"
#include "report/format.hpp"

#include <memory>
#include <ostream>

namespace cachewise::report {

// Prints `cachewise chain` output as requests arrive, so a large log is never
// held in memory.
class ChainPrinter {
public:
    virtual ~ChainPrinter() = default;
    // `reported`: the request's usage normalised to read / write / fresh
    // (account::reported_split), shown for usage that counts the cache
    // inside the prompt total; nothing when it lacks that total.
    virtual void request(const model::Request& request,
                         const std::optional<account::ReportedSplit>& reported) = 0;
    virtual void finish(const ingest::LoadSummary& summary) = 0;
};

// Text or JSON (Markdown is not offered for chain).
std::unique_ptr<ChainPrinter> make_chain_printer(Format format, std::ostream& out);

} // namespace cachewise::report
