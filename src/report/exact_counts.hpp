#pragma once

#include <cstdint>
#include <string>

namespace cachewise::report {

// How the exact counts of --exact-tokens went.
struct ExactCountSummary {
    std::uint64_t prefixes = 0;
    std::uint64_t calls = 0;
    std::uint64_t cached = 0;
};

// "exact counts: 1 prefix, 2 calls to count tokens, 0 from the cache".
std::string exact_count_text(const ExactCountSummary& exact);

} // namespace cachewise::report
