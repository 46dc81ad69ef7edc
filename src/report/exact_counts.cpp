#include "report/exact_counts.hpp"

#include <fmt/format.h>

namespace cachewise::report {

std::string
exact_count_text(const ExactCountSummary& exact)
{
    return fmt::format("exact counts: {} prefix{}, {} call{} to count tokens, {} from the cache",
                       exact.prefixes, exact.prefixes == 1 ? "" : "es", exact.calls,
                       exact.calls == 1 ? "" : "s", exact.cached);
}

} // namespace cachewise::report
