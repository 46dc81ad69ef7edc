// Hand-computed fixtures for DeepSeek's prefix units
// (rules/providers/deepseek.json: 64-token storage unit, 4,096-token interval).

#include "helpers.hpp"
#include "request_builder.hpp"
#include "sim/deepseek_cache.hpp"

#include <doctest/doctest.h>

using namespace cachewise;
using test::Block;

namespace {

model::Request
request(const std::vector<Block>& blocks, double second)
{
    auto r = test::make(blocks, second, "deepseek-v4-flash");
    r.provider = "deepseek";
    r.ended_at = Timestamp{static_cast<std::int64_t>((second + 3) * 1e6)};
    return r;
}

sim::DeepSeekCache
cache()
{
    return sim::DeepSeekCache(test::rules().provider("deepseek"), {});
}

} // namespace

TEST_SUITE("sim::deepseek_cache")
{
    TEST_CASE("the end of a request's input is a unit, read in whole 64-token units")
    {
        auto c = cache();
        CHECK(c.simulate(request({{"S", 1000}, {"A", 100}}, 0), 0).read == 0);
        const auto s = c.simulate(request({{"S", 1000}, {"A", 100}, {"R", 50}, {"U", 30}}, 10), 1);
        CHECK(s.read == 1088); // 1,100 -> 17 units of 64
        CHECK(s.fresh == 1180 - 1088);
        CHECK(s.lost_to_granularity == 12);
        CHECK(s.write_5m == 0);
    }

    TEST_CASE("A+B then A+C misses; A is then persisted and A+D hits")
    {
        auto c = cache();
        c.simulate(request({{"A", 1000}, {"B", 200}}, 0), 0);
        const auto ac = c.simulate(request({{"A", 1000}, {"C", 200}}, 10), 1);
        CHECK(ac.read == 0);
        CHECK(ac.lost_to_granularity == 1000); // shared, but no unit ends there
        const auto ad = c.simulate(request({{"A", 1000}, {"D", 200}}, 20), 2);
        CHECK(ad.read == 960); // the common-prefix unit: 1,000 -> 15 units
    }

    TEST_CASE("a long input persists units at fixed intervals")
    {
        auto c = cache();
        c.simulate(request({{"S", 5000}, {"X", 100}}, 0), 0);
        // Y shares S (5,000) only: the unit at 4,096 lies inside S and is whole.
        CHECK(c.simulate(request({{"S", 5000}, {"Y", 100}}, 10), 1).read == 4096);
    }

    TEST_CASE("the end of the output is a unit when the next turn sends the answer back")
    {
        auto c = cache();
        auto next = request({{"S", 1000}, {"A", 100}, {"answer", 100}, {"U", 30}}, 10);
        auto first = request({{"S", 1000}, {"A", 100}}, 0);
        first.continuation = model::Continuation{next.segments[2].chain, 1200};
        c.simulate(first, 0);
        CHECK(c.simulate(next, 1).read == 1152); // 1,200 -> 18 units, not 1,100 -> 17
    }

    TEST_CASE("a unit is readable only after its request ended")
    {
        auto c = cache();
        c.simulate(request({{"S", 2000}, {"A", 10}}, 0), 0); // ends at 3 s
        const auto early = c.simulate(request({{"S", 2000}, {"A", 10}, {"B", 10}}, 1), 1);
        CHECK(early.read == 0);
        REQUIRE(early.missed);
        CHECK(early.missed->reason == sim::MissReason::concurrent);
    }

    TEST_CASE("--block-size changes the storage unit")
    {
        sim::SimOptions options;
        options.block_size = 128;
        sim::DeepSeekCache c(test::rules().provider("deepseek"), options);
        c.simulate(request({{"S", 1000}, {"A", 100}}, 0), 0);
        CHECK(c.simulate(request({{"S", 1000}, {"A", 100}, {"B", 9}}, 10), 1).read == 1024);
    }
}
