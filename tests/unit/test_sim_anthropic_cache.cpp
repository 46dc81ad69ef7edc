// Hand-computed fixtures for the Anthropic cache simulation: every request
// is built segment by segment with exact token counts, so each expected
// (read, write 5m, write 1h, fresh) below is worked out by hand from the
// rules in rules/providers/anthropic.json.

#include "helpers.hpp"
#include "model/chain.hpp"
#include "request_builder.hpp"
#include "sim/anthropic_cache.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>

using namespace cachewise;
using model::Request;
using model::SegmentKind;
using model::Ttl;

namespace {

using test::Block;
using test::make;

struct Expect {
    std::int64_t read, write_5m, write_1h, fresh;
};

void
check(const sim::SimResult& s, Expect e)
{
    CHECK(s.read == e.read);
    CHECK(s.write_5m == e.write_5m);
    CHECK(s.write_1h == e.write_1h);
    CHECK(s.fresh == e.fresh);
}

// A 2,000-token system prompt cached with `ttl`, then `n` blocks of 10 tokens.
std::vector<Block>
conversation(int n, Ttl ttl, SegmentKind kind = SegmentKind::text)
{
    std::vector<Block> b{{"system prompt", 2000, SegmentKind::text, ttl}};
    for (int i = 0; i < n; ++i) {
        b.push_back({fmt::format("block {}", i), 10, kind, std::nullopt});
    }
    return b;
}

} // namespace

TEST_SUITE("sim::anthropic_cache")
{
    TEST_CASE("first write, then a read of the whole previous prefix")
    {
        sim::AnthropicCache cache(test::rules().provider("anthropic"));
        auto b1 = conversation(2, Ttl::five_minutes);
        b1.back().breakpoint = Ttl::five_minutes;
        check(cache.simulate(make(b1, 0), 0), {0, 2020, 0, 0});
        auto b2 = conversation(4, Ttl::five_minutes);
        b2.back().breakpoint = Ttl::five_minutes;
        const auto s = cache.simulate(make(b2, 30), 1);
        check(s, {2020, 20, 0, 0});
        CHECK(s.hit_writer == 0u);
    }

    TEST_CASE(
        "lookback: 25 text blocks after the last write miss it; 30 parallel tool calls do not")
    {
        // Request 1 writes at its last block (position 3). Request 2 appends 25
        // text blocks: its breakpoint is 25 positions later, the window of 20
        // ends before the entry, so only the system entry (also out of the
        // window) ... nothing is read.
        sim::AnthropicCache cache(test::rules().provider("anthropic"));
        auto b1 = conversation(2, Ttl::five_minutes);
        b1.back().breakpoint = Ttl::five_minutes;
        cache.simulate(make(b1, 0), 0);
        auto b2 = conversation(27, Ttl::five_minutes);
        b2[0].breakpoint.reset();
        b2.back().breakpoint = Ttl::five_minutes;
        const auto miss = cache.simulate(make(b2, 30), 1);
        check(miss, {0, 2270, 0, 0});
        REQUIRE(miss.missed);
        CHECK(miss.missed->reason == sim::MissReason::lookback);
        CHECK(miss.missed->segment == 2);

        // The same growth as one run of 30 tool_use blocks is one position: hit.
        sim::AnthropicCache cache2(test::rules().provider("anthropic"));
        cache2.simulate(make(b1, 0), 0);
        auto b3 = conversation(2, Ttl::five_minutes);
        b3[0].breakpoint.reset();
        for (int i = 0; i < 30; ++i) {
            b3.push_back({fmt::format("tool call {}", i), 10, SegmentKind::tool_use, std::nullopt});
        }
        b3.push_back({"next question", 10, SegmentKind::text, Ttl::five_minutes});
        const auto hit = cache2.simulate(make(b3, 30), 1);
        check(hit, {2020, 310, 0, 0});
    }

    TEST_CASE("TTL: gaps of 4 and 6 minutes at 5m; 50 minutes at 1h")
    {
        sim::AnthropicCache cache(test::rules().provider("anthropic"));
        auto b = conversation(1, Ttl::five_minutes);
        cache.simulate(make(b, 0), 0);                            // writes 2,000 at t=0
        check(cache.simulate(make(b, 240), 1), {2000, 0, 0, 10}); // 4 min: read, refreshed at 240
        const auto late = cache.simulate(make(b, 240 + 360), 2);  // 6 min after the refresh
        check(late, {0, 2000, 0, 10});
        REQUIRE(late.missed);
        CHECK(late.missed->reason == sim::MissReason::expired);
        CHECK(late.missed->gap_seconds == doctest::Approx(360));

        sim::AnthropicCache hourly(test::rules().provider("anthropic"));
        auto h = conversation(1, Ttl::one_hour);
        check(hourly.simulate(make(h, 0), 0), {0, 0, 2000, 10});
        check(hourly.simulate(make(h, 50 * 60), 1), {2000, 0, 0, 10});
    }

    TEST_CASE("a read of a longer prefix refreshes the shorter entries nested in it")
    {
        // rules fact read_refreshes_nested_entries, measured on Claude Code logs.
        sim::AnthropicCache cache(test::rules().provider("anthropic"));
        auto grown = conversation(3, Ttl::five_minutes);
        grown.back().breakpoint = Ttl::five_minutes;
        cache.simulate(make(conversation(1, Ttl::five_minutes), 0), 0); // writes 2,000 at 0
        check(cache.simulate(make(grown, 10), 1), {2000, 2030 - 2000, 0, 0});
        check(cache.simulate(make(grown, 200), 2), {2030, 0, 0, 0}); // reads 2,030: refreshes 2,000
        // 400 s after the system entry was written, 200 s after it was used
        // inside the longer prefix: alive.
        check(cache.simulate(make(conversation(2, Ttl::five_minutes), 400), 3), {2000, 0, 0, 20});
    }

    TEST_CASE("without times, requests are replayed in log order, each visible to the next")
    {
        sim::AnthropicCache cache(test::rules().provider("anthropic"));
        auto untimed = [&](int blocks) {
            auto r = make(conversation(blocks, Ttl::five_minutes), 0);
            r.started_at.reset();
            r.first_token_at.reset();
            return r;
        };
        check(cache.simulate(untimed(1), 0), {0, 2000, 0, 10});
        check(cache.simulate(untimed(2), 1), {2000, 0, 0, 20}); // not "concurrent"
    }

    TEST_CASE("concurrency: a request started 1 s after the writer, before its first token, misses")
    {
        sim::AnthropicCache cache(test::rules().provider("anthropic"));
        auto b = conversation(1, Ttl::five_minutes);
        cache.simulate(make(b, 0), 0); // first token at 2 s
        const auto s = cache.simulate(make(b, 1), 1);
        check(s, {0, 2000, 0, 10});
        REQUIRE(s.missed);
        CHECK(s.missed->reason == sim::MissReason::concurrent);
        check(cache.simulate(make(b, 5), 2), {2000, 0, 0, 10});
    }

    TEST_CASE("below the minimum: a 3,000-token prefix on claude-haiku-4-5 (minimum 4,096) writes "
              "nothing")
    {
        sim::AnthropicCache cache(test::rules().provider("anthropic"));
        std::vector<Block> b{{"system", 3000, SegmentKind::text, Ttl::five_minutes},
                             {"question", 50}};
        const auto s = cache.simulate(make(b, 0, "claude-haiku-4-5"), 0);
        check(s, {0, 0, 0, 3050});
        CHECK(s.minimum_tokens == 4096);
        CHECK(s.below_minimum == std::vector<std::size_t>{0});
        check(cache.simulate(make(b, 10, "claude-haiku-4-5"), 1), {0, 0, 0, 3050});
    }

    TEST_CASE("1h after 5m is rejected; 1h before 5m splits the writes")
    {
        sim::AnthropicCache cache(test::rules().provider("anthropic"));
        std::vector<Block> bad{{"system", 2000, SegmentKind::text, Ttl::five_minutes},
                               {"history", 1000, SegmentKind::text, Ttl::one_hour}};
        const auto r = cache.simulate(make(bad, 0), 0);
        CHECK(r.rejected);
        CHECK(r.reject_rule == "CW014");
        check(r, {0, 0, 0, 0});

        std::vector<Block> good{{"system", 2000, SegmentKind::text, Ttl::one_hour},
                                {"history", 1000, SegmentKind::text, Ttl::five_minutes},
                                {"question", 40}};
        check(cache.simulate(make(good, 10), 1), {0, 1000, 2000, 40});
        // A later request reads the 1h entry only: the 5m part is gone after 10 minutes.
        check(cache.simulate(make(good, 10 + 600), 2), {2000, 1000, 0, 40});
    }

    TEST_CASE("five breakpoints are rejected")
    {
        sim::AnthropicCache cache(test::rules().provider("anthropic"));
        std::vector<Block> b{{"system", 2000, SegmentKind::text, Ttl::five_minutes}};
        for (int i = 0; i < 4; ++i) {
            b.push_back({fmt::format("m{}", i), 100, SegmentKind::text, Ttl::five_minutes});
        }
        const auto r = cache.simulate(make(b, 0), 0);
        CHECK(r.rejected);
        CHECK(r.reject_rule == "CW013");
    }

    TEST_CASE(
        "an automatic top-level marker with explicit ones uses a slot and lands on the last block")
    {
        sim::AnthropicCache cache(test::rules().provider("anthropic"));
        std::vector<Block> b{
            {"system", 2000, SegmentKind::text, Ttl::five_minutes}, {"a", 100}, {"b", 100}};
        auto r = make(b, 0);
        r.auto_cache_control = model::CacheControl{Ttl::five_minutes};
        const auto s = cache.simulate(r, 0);
        CHECK(s.breakpoints.size() == 2);
        check(s, {0, 2200, 0, 0});

        // Four explicit markers plus the automatic one make five: rejected.
        std::vector<Block> four{{"system", 2000, SegmentKind::text, Ttl::five_minutes},
                                {"a", 100, SegmentKind::text, Ttl::five_minutes},
                                {"b", 100, SegmentKind::text, Ttl::five_minutes},
                                {"c", 100, SegmentKind::text, Ttl::five_minutes},
                                {"d", 100}};
        auto r4 = make(four, 100);
        r4.auto_cache_control = model::CacheControl{Ttl::five_minutes};
        const auto s4 = cache.simulate(r4, 1);
        CHECK(s4.rejected);
        CHECK(s4.reject_rule == "CW013");

        // An automatic marker with another TTL than the explicit marker on the last block: 400.
        std::vector<Block> same{{"system", 2000, SegmentKind::text, Ttl::one_hour}};
        auto rs = make(same, 200);
        rs.auto_cache_control = model::CacheControl{Ttl::five_minutes};
        CHECK(cache.simulate(rs, 2).reject_rule == "CW014");
    }

    TEST_CASE("workspaces are isolated")
    {
        sim::AnthropicCache cache(test::rules().provider("anthropic"));
        auto b = conversation(1, Ttl::five_minutes);
        auto a = make(b, 0);
        a.workspace = "team-a";
        cache.simulate(a, 0);
        auto other = make(b, 30);
        other.workspace = "team-b";
        check(cache.simulate(other, 1), {0, 2000, 0, 10});
        auto same = make(b, 60);
        same.workspace = "team-a";
        check(cache.simulate(same, 2), {2000, 0, 0, 10});
    }

    TEST_CASE("writes that are never read are reported dead")
    {
        sim::AnthropicCache cache(test::rules().provider("anthropic"));
        cache.simulate(make(conversation(1, Ttl::five_minutes), 0), 0);
        std::vector<Block> other{{"another prompt", 2500, SegmentKind::text, Ttl::five_minutes}};
        cache.simulate(make(other, 1000), 1);
        const auto writes = cache.writes();
        REQUIRE(writes.size() == 2);
        CHECK(writes[0].dead);
        CHECK(writes[0].reads == 0);
        CHECK(!writes[1].dead);
    }
}
