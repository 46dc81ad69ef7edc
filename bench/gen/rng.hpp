#pragma once

#include "util/splitmix.hpp"

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace cachewise::gen {

// Randomness: splitmix64, so the generated log depends on the seed alone.
class Rng : public cachewise::SplitMix64 {
public:
    using SplitMix64::SplitMix64;
    std::size_t index(std::size_t n) { return static_cast<std::size_t>(below(n)); }
    std::int64_t range(std::int64_t lo, std::int64_t hi)
    {
        return lo + static_cast<std::int64_t>(below(static_cast<std::uint64_t>(hi - lo + 1)));
    }
    double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
    bool chance(double p) { return unit() < p; }
    // Log-uniform in [lo, hi]: many small values, a few large ones.
    std::size_t log_uniform(double lo, double hi)
    {
        return static_cast<std::size_t>(lo * std::exp(unit() * std::log(hi / lo)));
    }
    template <typename T> const T& pick(const std::vector<T>& v) { return v[index(v.size())]; }
    template <typename T, std::size_t N> const T& pick(const std::array<T, N>& v)
    {
        return v[index(N)];
    }
};

} // namespace cachewise::gen
