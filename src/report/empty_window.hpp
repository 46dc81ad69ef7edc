#pragma once

#include "ingest/loader.hpp"
#include "report/format.hpp"
#include "util/time.hpp"

#include <optional>
#include <ostream>

namespace cachewise::report {

// --since/--until that select no request: an answer, not an input error.
// "0 requests in [START, END) (3 requests outside it, 2 files last written
// before it)".
// In JSON it is a document of its own ({schema_version, requests: 0, since,
// until, message}); in the formats whose documents hold findings or rows
// (csv, sarif, github, html) the sentence goes to `err` (the caller prints
// SARIF's empty run).
void print_empty_window(const ingest::LoadSummary& summary, std::optional<Timestamp> since,
                        std::optional<Timestamp> until, Format format, std::ostream& out,
                        std::ostream& err);

} // namespace cachewise::report
