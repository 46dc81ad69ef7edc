#pragma once

#include "ingest/loader.hpp"
#include "util/time.hpp"

#include <optional>
#include <ostream>

namespace cachewise::report {

// --since/--until that select no request: an answer, not an input error.
// "0 requests in [START, END) (3 requests outside it, 2 files last written
// before it)".
void print_empty_window(const ingest::LoadSummary& summary, std::optional<Timestamp> since,
                        std::optional<Timestamp> until, std::ostream& out);

} // namespace cachewise::report
