#include "util/flat_map.hpp"
#include "util/hash.hpp"
#include "util/splitmix.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <map>

using namespace cachewise;

namespace {

// Every key in one probe run: erase must shift the run back correctly.
struct Clash {
    std::size_t operator()(std::uint64_t key) const { return key % 3; }
};

// Every key in one probe run that starts at the last slot, whatever the
// slot count: the run wraps to the first slots, and erase must shift it back
// across the wrap. FlatMap multiplies a hash by the golden ratio and scales
// the top bits to its slots: a hash of x times the ratio's inverse (mod
// 2^64) lands where x does, and an x near 2^64 lands on the last slot.
struct ClashAtEnd {
    static constexpr std::uint64_t inverse_of_golden()
    {
        constexpr std::uint64_t golden = 0x9E3779B97F4A7C15ULL;
        std::uint64_t inverse = golden; // Newton's iteration doubles the correct bits
        for (int i = 0; i < 6; ++i) {
            inverse *= 2 - golden * inverse;
        }
        return inverse;
    }
    std::size_t operator()(std::uint64_t key) const
    {
        return (UINT64_MAX - key % 3) * inverse_of_golden();
    }
};

template <typename Hasher>
void
check_against_map(std::uint64_t seed, std::uint64_t keys)
{
    FlatMap<std::uint64_t, std::uint64_t, Hasher> flat;
    std::map<std::uint64_t, std::uint64_t> reference;
    SplitMix64 rng(seed);
    for (int step = 0; step < 20000; ++step) {
        const std::uint64_t key = rng.next() % keys;
        switch (rng.next() % 3) {
        case 0:
            *flat.try_emplace(key).first = static_cast<std::uint64_t>(step);
            reference[key] = static_cast<std::uint64_t>(step);
            break;
        case 1:
            CHECK(flat.erase(key) == (reference.erase(key) == 1));
            break;
        default: {
            const auto* found = flat.find(key);
            const auto it = reference.find(key);
            REQUIRE((found != nullptr) == (it != reference.end()));
            if (found != nullptr) {
                CHECK(*found == it->second);
            }
        }
        }
        REQUIRE(flat.size() == reference.size());
    }
    std::size_t seen = 0;
    flat.for_each([&](std::uint64_t key, std::uint64_t value) {
        ++seen;
        CHECK(reference.at(key) == value);
    });
    CHECK(seen == reference.size());
}

} // namespace

TEST_SUITE("util::FlatMap")
{
    TEST_CASE("inserts, finds and erases as std::map does, through growth")
    {
        check_against_map<std::hash<std::uint64_t>>(1, 5000);
        check_against_map<std::hash<std::uint64_t>>(2, 40);
    }

    TEST_CASE("keys that all land on few slots keep their runs intact through erase")
    {
        check_against_map<Clash>(3, 300);
    }

    TEST_CASE("a run that wraps past the last slot keeps its keys through erase and growth")
    {
        static_assert(ClashAtEnd::inverse_of_golden() * 0x9E3779B97F4A7C15ULL == 1);
        check_against_map<ClashAtEnd>(4, 300);
    }

    TEST_CASE("try_emplace reports a new key once and keeps its value")
    {
        FlatMap<Hash128, int, Hash128Hasher> map;
        const Hash128 a{1, 2};
        const auto [value, inserted] = map.try_emplace(a);
        CHECK(inserted);
        CHECK(*value == 0);
        *value = 7;
        CHECK_FALSE(map.try_emplace(a).second);
        CHECK(map.at(a) == 7);
        CHECK(map[a] == 7);
        CHECK_THROWS_AS((void)map.at(Hash128{2, 1}), std::out_of_range);
        CHECK(map.find(Hash128{2, 1}) == nullptr);
    }
}
