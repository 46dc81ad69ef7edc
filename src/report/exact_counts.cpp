#include "report/exact_counts.hpp"

#include "util/format.hpp"

#include <fmt/format.h>

namespace cachewise::report {

std::string
exact_count_text(const ExactCountSummary& exact)
{
    return fmt::format("exact counts: {}, {} to count tokens, {} from the cache",
                       count_noun(exact.prefixes, "prefix", "prefixes"),
                       count_noun(exact.calls, "call"), group_count(exact.cached));
}

} // namespace cachewise::report
