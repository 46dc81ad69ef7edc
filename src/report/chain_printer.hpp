#pragma once

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
    virtual void request(const model::Request& request) = 0;
    virtual void finish(const ingest::LoadSummary& summary) = 0;
};

// Text or JSON (Markdown is not offered for chain).
std::unique_ptr<ChainPrinter> make_chain_printer(Format format, std::ostream& out);

} // namespace cachewise::report
