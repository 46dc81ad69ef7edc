#include "report/load_notes.hpp"

#include "util/format.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

namespace cachewise::report {

void
print_load_notes(const ingest::LoadSummary& load, std::ostream& out)
{
    if (load.duplicates > 0) {
        fmt::print(out,
                   "\n{} counted once (the same request read again: its id, start time and "
                   "prompt, or its Claude Code requestId, seen before)\n",
                   count_noun(load.duplicates, "duplicate record"));
    }
    if (load.error_count > 0) {
        fmt::print(out, "\n{} skipped (listed on standard error, unless --quiet)\n",
                   count_noun(load.error_count, "broken record"));
    }
}

} // namespace cachewise::report
