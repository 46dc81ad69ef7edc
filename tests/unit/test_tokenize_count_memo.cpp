#include "tokenize/count_memo.hpp"

#include <doctest/doctest.h>

using cachewise::Hash128;
using cachewise::tokenize::CountMemo;

TEST_SUITE("tokenize::CountMemo")
{
    TEST_CASE("finds what it was given across growth, and nothing else")
    {
        CountMemo memo;
        CHECK(!memo.find(Hash128{1, 2}));
        // Keys that share their low bits collide in every table size.
        for (std::uint64_t i = 0; i < 5000; ++i) {
            memo.add(Hash128{(i % 7) << 20, i}, static_cast<std::int64_t>(i));
        }
        CHECK(memo.size() == 5000);
        for (std::uint64_t i = 0; i < 5000; ++i) {
            const auto n = memo.find(Hash128{(i % 7) << 20, i});
            REQUIRE(n);
            CHECK(*n == static_cast<std::int64_t>(i));
        }
        CHECK(!memo.find(Hash128{0, 5000}));
        CHECK(!memo.find(Hash128{1, 0}));
    }

    TEST_CASE("a count of zero is kept, and a key's first count stays")
    {
        CountMemo memo;
        memo.add(Hash128{9, 9}, 0);
        memo.add(Hash128{9, 9}, 7);
        CHECK(memo.find(Hash128{9, 9}) == std::optional<std::int64_t>(0));
        CHECK(memo.size() == 1);
    }
}
