// Hand-computed fixtures for OpenAI's cache (rules/providers/openai.json):
// automatic caching in 128-token steps before GPT-5.6, breakpoints after.

#include "helpers.hpp"
#include "request_builder.hpp"
#include "sim/openai_cache.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>

using namespace cachewise;
using test::Block;

namespace {

model::Request
request(const std::vector<Block>& blocks, double second, const std::string& model = "gpt-4o")
{
    auto r = test::make(blocks, second, model);
    r.provider = "openai";
    return r;
}

sim::OpenAICache
cache()
{
    return sim::OpenAICache(test::rules().provider("openai"), {});
}

} // namespace

TEST_SUITE("sim::openai_cache")
{
    TEST_CASE("before GPT-5.6: 1,300 shared tokens are read as 1,280 (128-token steps)")
    {
        auto c = cache();
        const auto a = c.simulate(request({{"S", 1300}, {"A", 200}}, 0), 0);
        CHECK(a.read == 0);
        CHECK(a.fresh == 1500);
        CHECK(a.write_5m == 0); // no write fee before GPT-5.6
        const auto b = c.simulate(request({{"S", 1300}, {"B", 300}}, 10), 1);
        CHECK(b.read == 1280);
        CHECK(b.fresh == 320);
        CHECK(b.lost_to_granularity == 20);
        REQUIRE(b.hit_writer);
        CHECK(*b.hit_writer == 0);
    }

    TEST_CASE("before GPT-5.6: prompts under 1,024 tokens are not cached, nor are shorter hits")
    {
        auto c = cache();
        const auto a = c.simulate(request({{"S", 900}, {"A", 50}}, 0), 0);
        CHECK(a.below_minimum.size() == 1);
        const auto b = c.simulate(request({{"S", 900}, {"B", 200}}, 10), 1);
        CHECK(b.read == 0);
        CHECK(b.fresh == 1100);
        // B itself was cached (1,100 >= 1,024) but shares only 900 with C.
        const auto d = c.simulate(request({{"S", 900}, {"C", 300}}, 20), 2);
        CHECK(d.read == 0);
    }

    TEST_CASE("before GPT-5.6: in_memory entries expire after 10 idle minutes; 24h keeps them")
    {
        auto c = cache();
        c.simulate(request({{"S", 2000}, {"A", 10}}, 0), 0);
        const auto late = c.simulate(request({{"S", 2000}, {"B", 10}}, 700), 1);
        CHECK(late.read == 0);
        REQUIRE(late.missed);
        CHECK(late.missed->reason == sim::MissReason::expired);

        auto d = cache();
        auto first = request({{"S", 2000}, {"A", 10}}, 0);
        first.retention = "24h";
        d.simulate(first, 0);
        const auto kept = d.simulate(request({{"S", 2000}, {"B", 10}}, 700), 1);
        CHECK(kept.read == 1920); // 2,000 in 128-token steps
    }

    TEST_CASE("prompt_cache_key routes: another key is another cache")
    {
        auto c = cache();
        auto a = request({{"S", 2000}, {"A", 10}}, 0);
        a.cache_key = "tenant-1";
        c.simulate(a, 0);
        auto b = request({{"S", 2000}, {"B", 10}}, 5);
        b.cache_key = "tenant-2";
        CHECK(c.simulate(b, 1).read == 0);
        b.cache_key = "tenant-1";
        CHECK(c.simulate(b, 2).read == 1920);
    }

    TEST_CASE("GPT-5.6 explicit mode: the marked prefix is written at 1.25x, then read whole")
    {
        auto c = cache();
        auto a = request({{"catalogue", 4010, model::SegmentKind::text, model::Ttl::five_minutes},
                          {"Reply with OK", 10}},
                         0, "gpt-5.6-sol");
        a.explicit_mode = true;
        const auto first = c.simulate(a, 0);
        CHECK(first.read == 0);
        CHECK(first.write_5m == 4010);
        CHECK(first.fresh == 10);
        a.started_at = Timestamp{5'000'000};
        const auto second = c.simulate(a, 1);
        CHECK(second.read == 4010); // no 128-token rounding from GPT-5.6 on
        CHECK(second.write_5m == 0);
        CHECK(second.fresh == 10);
    }

    TEST_CASE("GPT-5.6 implicit mode: a breakpoint at the end of the latest message")
    {
        auto c = cache();
        const auto a = c.simulate(request({{"S", 2000}, {"U1", 100}}, 0, "gpt-5.6"), 0);
        CHECK(a.write_5m == 2100);
        const auto b = c.simulate(
            request({{"S", 2000}, {"U1", 100}, {"A1", 50}, {"U2", 100}}, 10, "gpt-5.6"), 1);
        CHECK(b.read == 2100);
        CHECK(b.write_5m == 150);
        CHECK(b.fresh == 0);
    }

    TEST_CASE("GPT-5.6 explicit mode without breakpoints caches nothing")
    {
        auto c = cache();
        auto a = request({{"S", 2000}, {"U1", 100}}, 0, "gpt-5.6");
        a.explicit_mode = true;
        const auto s = c.simulate(a, 0);
        CHECK(s.write_5m == 0);
        CHECK(s.fresh == 2100);
        CHECK(s.breakpoints.empty());
        CHECK(!s.notes.empty());
    }

    TEST_CASE("GPT-5.6: only the latest 80 breakpoints of a cache are considered")
    {
        auto c = cache();
        c.simulate(request({{"first", 2000}, {"x", 10}}, 0, "gpt-5.6"), 0);
        for (int i = 1; i <= 80; ++i) {
            c.simulate(request({{fmt::format("other {}", i), 2000}, {"x", 10}}, i, "gpt-5.6"),
                       static_cast<std::size_t>(i));
        }
        // 80 newer breakpoints push the first out of consideration.
        const auto s = c.simulate(request({{"first", 2000}, {"x", 10}}, 100, "gpt-5.6"), 81);
        CHECK(s.read == 0);

        auto d = cache();
        d.simulate(request({{"first", 2000}, {"x", 10}}, 0, "gpt-5.6"), 0);
        for (int i = 1; i <= 79; ++i) {
            d.simulate(request({{fmt::format("other {}", i), 2000}, {"x", 10}}, i, "gpt-5.6"),
                       static_cast<std::size_t>(i));
        }
        CHECK(d.simulate(request({{"first", 2000}, {"x", 10}}, 100, "gpt-5.6"), 80).read == 2010);
    }

    TEST_CASE("GPT-5.6: entries live 30 minutes after their latest write or reuse")
    {
        auto c = cache();
        c.simulate(request({{"S", 2000}, {"U", 10}}, 0, "gpt-5.6"), 0);
        CHECK(c.simulate(request({{"S", 2000}, {"U", 10}}, 1700, "gpt-5.6"), 1).read == 2010);
        // Reused at 1,700 s: alive until 3,500 s.
        CHECK(c.simulate(request({{"S", 2000}, {"U", 10}}, 3400, "gpt-5.6"), 2).read == 2010);
        CHECK(c.simulate(request({{"S", 2000}, {"U", 10}}, 5300, "gpt-5.6"), 3).read == 0);
    }
}
