#pragma once

#include <cstdint>

namespace cachewise {

// splitmix64: a tiny deterministic generator, the same sequence on every
// platform, for the log generator and the fuzz tests (reproducible failures).
class SplitMix64 {
public:
    explicit SplitMix64(std::uint64_t seed) : m_state(seed) {}

    std::uint64_t next()
    {
        std::uint64_t z = (m_state += 0x9E3779B97F4A7C15ULL);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        return z ^ (z >> 31);
    }
    // Uniform in [0, n); the modulo bias is irrelevant for n far below 2^64.
    std::uint64_t below(std::uint64_t n) { return n == 0 ? 0 : next() % n; }

private:
    std::uint64_t m_state;
};

} // namespace cachewise
