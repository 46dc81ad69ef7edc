// Hand-computed fixtures for Gemini's implicit (2,048-token steps, measured)
// and explicit caches (rules/providers/gemini.json).

#include "helpers.hpp"
#include "request_builder.hpp"
#include "sim/gemini_cache.hpp"

#include <doctest/doctest.h>

using namespace cachewise;
using test::Block;

namespace {

model::Request
request(const std::vector<Block>& blocks, double second)
{
    auto r = test::make(blocks, second, "gemini-2.5-flash");
    r.provider = "gemini";
    return r;
}

sim::GeminiCache
cache()
{
    return sim::GeminiCache(test::rules().provider("gemini"), {});
}

} // namespace

TEST_SUITE("sim::gemini_cache")
{
    TEST_CASE("implicit: the shared prefix is read in 2,048-token steps")
    {
        auto c = cache();
        CHECK(c.simulate(request({{"S", 5000}, {"A", 100}}, 0), 0).read == 0);
        const auto s = c.simulate(request({{"S", 5000}, {"B", 100}}, 10), 1);
        CHECK(s.read == 4096);
        CHECK(s.lost_to_granularity == 904);
        CHECK(s.fresh == 5100 - 4096);
        CHECK(s.write_5m == 0);
    }

    TEST_CASE("implicit: below the model's minimum nothing is cached; entries expire")
    {
        auto c = cache();
        const auto small = c.simulate(request({{"S", 1000}, {"A", 10}}, 0), 0);
        CHECK(small.below_minimum.size() == 1);
        CHECK(c.simulate(request({{"S", 1000}, {"B", 2000}}, 5), 1).read == 0);

        auto d = cache();
        d.simulate(request({{"S", 5000}, {"A", 100}}, 0), 0);
        CHECK(d.simulate(request({{"S", 5000}, {"B", 100}}, 400), 1).read == 0);
    }

    TEST_CASE("explicit: a created cache is read whole until it expires")
    {
        auto c = cache();
        auto create = request({{"cached corpus", 3000}}, 0);
        create.cache_create = model::CacheCreate{"cachedContents/abc", 600.0, std::nullopt};
        const auto made = c.simulate(create, 0);
        CHECK(made.read == 0);
        CHECK(made.fresh == 3000);

        auto use = request({{"cachedContent:cachedContents/abc", 3000}, {"question", 50}}, 100);
        use.cached_content = "cachedContents/abc";
        use.segments[0].kind = model::SegmentKind::unlogged;
        const auto hit = c.simulate(use, 1);
        CHECK(hit.read == 3000);
        CHECK(hit.fresh == 50);

        use.started_at = Timestamp{700'000'000};
        const auto late = c.simulate(use, 2);
        CHECK(late.read < 3000);
        REQUIRE(late.missed);
        CHECK(late.missed->reason == sim::MissReason::expired);
    }
}
