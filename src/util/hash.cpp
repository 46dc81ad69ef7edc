#include "util/hash.hpp"

#include <fmt/format.h>
#include <xxhash.h>

#include <new>

namespace cachewise {

std::string
Hash128::hex() const
{
    return fmt::format("{:016x}{:016x}", high, low);
}

std::string
Hash128::short_hex(std::size_t digits) const
{
    return hex().substr(0, digits);
}

Hash128
hash_bytes(std::string_view bytes)
{
    const XXH128_hash_t h = XXH3_128bits(bytes.data(), bytes.size());
    return Hash128{h.low64, h.high64};
}

Hash128
hash_pair(const Hash128& a, const Hash128& b)
{
    // Both are XXH3-128 hashes already, so hashing them again (a fifth of
    // the analysis' per-segment lookups) is not needed to keep pairs apart:
    // b is xor-ed with a mix of a. For one a that is a bijection (no two b's
    // meet); two a's meet only where the xor of two independent 128-bit
    // hashes is exactly the xor of their mixes.
    constexpr std::uint64_t k_odd_low = 0x9E3779B97F4A7C15ULL;
    constexpr std::uint64_t k_odd_high = 0xC2B2AE3D27D4EB4FULL;
    const std::uint64_t low = (a.low ^ (a.high >> 31)) * k_odd_low;
    const std::uint64_t high = (a.high ^ (a.low >> 29)) * k_odd_high;
    return Hash128{b.low ^ low ^ (low >> 32), b.high ^ high ^ (high >> 32)};
}

HashBuilder::HashBuilder() : m_state(XXH3_createState())
{
    if (m_state == nullptr) {
        throw std::bad_alloc();
    }
    XXH3_128bits_reset(static_cast<XXH3_state_t*>(m_state));
}

HashBuilder::~HashBuilder()
{
    XXH3_freeState(static_cast<XXH3_state_t*>(m_state));
}

HashBuilder&
HashBuilder::add(std::string_view bytes)
{
    XXH3_128bits_update(static_cast<XXH3_state_t*>(m_state), bytes.data(), bytes.size());
    return *this;
}

HashBuilder&
HashBuilder::add(const Hash128& h)
{
    const std::uint64_t words[2] = {h.low, h.high};
    XXH3_128bits_update(static_cast<XXH3_state_t*>(m_state), words, sizeof(words));
    return *this;
}

HashBuilder&
HashBuilder::add_u64(std::uint64_t v)
{
    XXH3_128bits_update(static_cast<XXH3_state_t*>(m_state), &v, sizeof(v));
    return *this;
}

Hash128
HashBuilder::digest() const
{
    const XXH128_hash_t h = XXH3_128bits_digest(static_cast<XXH3_state_t*>(m_state));
    return Hash128{h.low64, h.high64};
}

} // namespace cachewise
