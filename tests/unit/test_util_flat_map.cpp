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
