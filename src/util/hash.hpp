#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace cachewise {

// A 128-bit XXH3 digest. Identity chains and content addressing both use it;
// at 2^-64 collision odds per pair, equality of digests stands for equality
// of bytes.
struct Hash128 {
    std::uint64_t low = 0;
    std::uint64_t high = 0;

    friend bool operator==(const Hash128&, const Hash128&) = default;
    friend auto operator<=>(const Hash128&, const Hash128&) = default;

    [[nodiscard]] bool is_zero() const { return low == 0 && high == 0; }
    // 32 lower-case hex digits, high word first (XXH128's canonical order).
    [[nodiscard]] std::string hex() const;
    // The first `digits` hex digits, for tables.
    [[nodiscard]] std::string short_hex(std::size_t digits = 12) const;
};

Hash128 hash_bytes(std::string_view bytes);
// A key for the pair of two hashes (a namespace and a chain), for
// per-segment lookups: distinct pairs of distinct hashes give distinct keys
// as surely as the hashes themselves are distinct. Not a hash of a's and
// b's bytes; in-memory keys only.
Hash128 hash_pair(const Hash128& a, const Hash128& b);

// One link of a chain: XXH3-128 over parent || payload, without copying.
class HashBuilder {
public:
    HashBuilder();
    ~HashBuilder();
    HashBuilder(const HashBuilder&) = delete;
    HashBuilder& operator=(const HashBuilder&) = delete;

    HashBuilder& add(std::string_view bytes);
    HashBuilder& add(const Hash128& h);
    HashBuilder& add_u64(std::uint64_t v);
    [[nodiscard]] Hash128 digest() const;

private:
    void* m_state; // XXH3_state_t, kept out of the header
};

struct Hash128Hasher {
    std::size_t operator()(const Hash128& h) const noexcept
    {
        return static_cast<std::size_t>(h.low ^ (h.high * 0x9E3779B97F4A7C15ULL));
    }
};

} // namespace cachewise
