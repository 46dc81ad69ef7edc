#include "tokenize/count_memo.hpp"

#include <doctest/doctest.h>

#include <thread>
#include <vector>

using cachewise::Hash128;
using cachewise::tokenize::CountMemo;
using cachewise::tokenize::SharedCountMemo;

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

    TEST_CASE("a shared memo holds what several threads added at once")
    {
        SharedCountMemo memo;
        std::vector<std::thread> threads;
        for (std::uint64_t t = 0; t < 4; ++t) {
            threads.emplace_back([&memo, t] {
                for (std::uint64_t i = t; i < 20000; i += 4) {
                    memo.add(Hash128{i * 7919, i}, static_cast<std::int64_t>(i));
                    (void)memo.find(Hash128{i, i * 7919}); // not there
                }
            });
        }
        for (auto& t : threads) {
            t.join();
        }
        for (std::uint64_t i = 0; i < 20000; ++i) {
            REQUIRE(memo.find(Hash128{i * 7919, i}) == std::optional<std::int64_t>(i));
        }
        CHECK(!memo.find(Hash128{1, 7919}));
    }
}
