#include "analysis/analyzer.hpp"
#include "analysis_helpers.hpp"

#include <doctest/doctest.h>

using namespace cachewise;
using cachewise::test::analyse;
using cachewise::test::body;
using cachewise::test::record;

namespace {

const std::string k_system = R"("You are a helpful research assistant for the finance team.")";

// n question/answer pairs and a last question: turns(n) extends turns(n - 1).
std::string
turns(int n)
{
    std::string m = "[";
    for (int i = 0; i < n; ++i) {
        m += fmt::format(
            R"({{"role":"user","content":"question {}"}},{{"role":"assistant","content":"answer {}"}},)",
            i, i);
    }
    return m + fmt::format(R"({{"role":"user","content":"question {}"}}])", n);
}

std::string
replace_model(std::string b)
{
    const auto at = b.find("claude-sonnet-4-5");
    b.replace(at, 17, "claude-haiku-4-5");
    return b;
}

} // namespace

TEST_SUITE("analysis::analyzer")
{
    TEST_CASE("partners in interleaved streams: the longest shared chain, not the previous line")
    {
        const std::string other_system = R"("You are a translator.")";
        const auto a = analyse({record("a1", "A", 0, body(k_system, turns(1))),
                                record("b1", "B", 5, body(other_system, turns(1))),
                                record("a2", "A", 10, body(k_system, turns(2))),
                                record("b2", "B", 15, body(other_system, turns(2)))});
        REQUIRE(a.result.outcomes.size() == 4);
        CHECK(a.result.outcomes[2].partner == "a1");
        CHECK(a.result.outcomes[3].partner == "b1");
        CHECK(a.result.findings.empty());
        CHECK(a.result.extends == 2);
        CHECK(a.result.cold_starts == 1); // a1
        CHECK(a.result.branched == 1);    // b1 shares the tools with a1
    }

    TEST_CASE("a request whose whole prompt is a strict prefix of its partner's is truncated")
    {
        // The conversation dropped its last turns: not append-only growth.
        const auto a = analyse({record("r1", "S", 0, body(k_system, turns(2))),
                                record("r2", "S", 10, body(k_system, turns(1))),
                                record("r3", "S", 20, body(k_system, turns(2)))});
        REQUIRE(a.result.outcomes.size() == 3);
        CHECK(a.result.outcomes[1].partner == "r1");
        CHECK(a.result.outcomes[1].status == analysis::RequestOutcome::Status::truncated);
        CHECK(analysis::to_string(a.result.outcomes[1].status) == "truncated");
        CHECK(a.result.truncated == 1);
        // Sent again whole, it extends (or repeats) the longer one.
        CHECK(a.result.outcomes[2].status == analysis::RequestOutcome::Status::extends);
        CHECK(a.result.extends == 1);
        CHECK(a.result.findings.empty());
    }

    TEST_CASE("ties go to the most recent request")
    {
        const auto a = analyse({record("x1", "S", 0, body(k_system, turns(1))),
                                record("x2", "T", 5, body(k_system, turns(1))),
                                record("x3", "U", 10, body(k_system, turns(2)))});
        // x3 extends both x1 and x2 equally; x2 is the more recent.
        CHECK(a.result.outcomes[2].partner == "x2");
    }

    TEST_CASE("a side call of another model mixed into a session does not disturb it")
    {
        const std::string side = replace_model(
            body(R"("Summarise in five words.")", R"([{"role":"user","content":"title?"}])"));
        const auto a =
            analyse({record("m1", "S", 0, body(k_system, turns(1))), record("h1", "S", 3, side),
                     record("m2", "S", 10, body(k_system, turns(2)))});
        CHECK(a.result.outcomes[2].partner == "m1");
        CHECK(a.result.outcomes[2].status == analysis::RequestOutcome::Status::extends);
    }

    TEST_CASE("a partner older than the window is none: a cold start")
    {
        analysis::AnalyzeOptions options;
        options.window_seconds = 60;
        const auto a = analyse({record("r1", "S", 0, body(k_system, turns(1))),
                                record("r2", "S", 600, body(k_system, turns(2)))},
                               options);
        CHECK(a.result.cold_starts == 2);
        CHECK(a.result.outcomes[1].partner.empty());
    }

    TEST_CASE("requests are ordered by start time, not by their place in the log")
    {
        const auto a = analyse({record("late", "S", 100, body(k_system, turns(2))),
                                record("early", "S", 0, body(k_system, turns(1)))});
        CHECK(a.result.outcomes[0].id == "early");
        CHECK(a.result.outcomes[1].partner == "early");
    }

    TEST_CASE("without streams in the log, streams are inferred from shared history")
    {
        const auto bare = [](const std::string& b) { return b; };
        const auto a = analyse({bare(body(k_system, turns(1))), bare(body(k_system, turns(2))),
                                bare(body(R"("You are a poet.")",
                                          R"([{"role":"user","content":"a haiku, please"}])"))});
        CHECK(a.result.outcomes[0].stream == a.result.outcomes[1].stream);
        CHECK(a.result.outcomes[2].stream != a.result.outcomes[0].stream);
        CHECK(a.result.streams == 2);
    }

    TEST_CASE("a dynamic field in a short cold-start prompt is reported, spoiling nothing yet")
    {
        const std::string system =
            R"("Session 7d3f9a2c-5b1e-4c8d-9f60-2a4e8b1c3d57. You are a helpful research assistant.")";
        const auto a = analyse({record("r1", "S", 0, body(system, turns(1)))});
        REQUIRE(a.result.dynamic_fields.size() == 1);
        const auto& f = a.result.dynamic_fields[0];
        CHECK(f.rule == "CW010");
        CHECK(f.kind == "uuid");
        CHECK(f.location.path == "system[0]");
        CHECK(f.location.offset == 8);
        CHECK(f.tokens_lost == 0); // below the 1,024-token minimum: nothing is cached
        CHECK(f.message.find("below the model's minimum") != std::string::npos);
        CHECK(f.excerpt->now.find("«7d3f9a2c-5b1e-4c8d-9f60-2a4e8b1c3d57»") != std::string::npos);
    }

    TEST_CASE("reuse potential is shared tokens over input tokens")
    {
        const auto a = analyse({record("r1", "S", 0, body(k_system, turns(1))),
                                record("r2", "S", 10, body(k_system, turns(2)))});
        const auto& r = a.result;
        CHECK(r.input_tokens == r.outcomes[0].prompt_tokens + r.outcomes[1].prompt_tokens);
        CHECK(r.shared_tokens == r.outcomes[0].prompt_tokens);
        CHECK(r.reuse_potential() ==
              doctest::Approx(static_cast<double>(r.shared_tokens) / r.input_tokens));
    }

    TEST_CASE("hot prefixes: the stable head of a template family")
    {
        std::vector<std::string> lines;
        lines.reserve(5);
        for (int i = 0; i < 5; ++i) {
            lines.push_back(record(
                fmt::format("q{}", i), fmt::format("s{}", i), i * 10,
                body(k_system,
                     fmt::format(R"([{{"role":"user","content":"question number {}"}}])", i))));
        }
        const auto a = analyse(lines);
        REQUIRE(!a.result.hot_prefixes.empty());
        const auto& h = a.result.hot_prefixes[0];
        CHECK(h.requests == 5);
        CHECK(h.streams == 5);
        CHECK(h.ends_at == "system[0]");
        CHECK(h.segments == 3);
        CHECK(a.result.branched == 4);
    }

    TEST_CASE("hot prefixes: never longer than the prompt of a request through them")
    {
        // The same bytes, calibrated to each request's reported total: the
        // first request reports ten times the others' input.
        std::vector<std::string> lines;
        for (int i = 0; i < 3; ++i) {
            std::string line = record(
                fmt::format("q{}", i), fmt::format("s{}", i), i * 10,
                body(k_system,
                     fmt::format(R"([{{"role":"user","content":"question number {}"}}])", i)));
            line.pop_back();
            line +=
                fmt::format(R"(,"response":{{"usage":{{"input_tokens":{},"output_tokens":5}}}}}})",
                            i == 0 ? 3000 : 300);
            lines.push_back(line);
        }
        const auto a = analyse(lines);
        REQUIRE(!a.result.hot_prefixes.empty());
        const auto& h = a.result.hot_prefixes[0];
        CHECK(h.requests == 3);
        REQUIRE(a.result.outcomes.size() == 3);
        CHECK(a.result.outcomes[0].prompt_tokens == 3000);
        for (const auto& o : a.result.outcomes) {
            CHECK(h.tokens <= o.prompt_tokens);
        }
        CHECK(h.tokens > 0);
    }

    TEST_CASE("a time that starts conversations of two streams unchanged is not a changing value")
    {
        const std::string system =
            R"("Support bot. The nightly maintenance window starts at 11:30 PM UTC. )" +
            std::string(400, 'x') + R"(")";
        const auto lines = [&](const std::string& second_session) {
            return std::vector<std::string>{
                record("a1", "A", 0, body(system, turns(1))),
                record("b1", second_session, 50, body(system, turns(1)))};
        };
        analysis::AnalyzeOptions options;
        options.window_seconds = 30; // each request starts a conversation of its own
        const auto two_streams = analyse(lines("B"), options);
        CHECK(two_streams.result.dynamic_fields.empty());
        // One stream that keeps it does not show it: a session's start time
        // stays for the session.
        const auto one_stream = analyse(lines("A"), options);
        REQUIRE(one_stream.result.dynamic_fields.size() == 1);
        CHECK(one_stream.result.dynamic_fields[0].kind == "time");
    }

    TEST_CASE("hot prefixes: each template family's head, beside another family")
    {
        // Two families (their first segments, the tools, differ). The first
        // parts after its system prompt; in the second every request shares
        // the first message and only one goes on, so its head is the deepest
        // prefix its whole family shares, found against its own root.
        const std::string other_tools =
            R"([{"name":"translate","description":"Translate a text.","input_schema":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}}])";
        const std::string other_system = R"("You are a translator for the legal team.")";
        const std::string shared = R"({"role":"user","content":"Translate the contract."})";
        std::vector<std::string> lines;
        for (int i = 0; i < 7; ++i) {
            std::string b;
            if (i % 2 == 0) { // 4 requests
                b = body(k_system,
                         fmt::format(R"([{{"role":"user","content":"request number {}"}}])", i));
            } else if (i < 5) { // 2 requests, the same prompt
                b = body(other_system, "[" + shared + "]", other_tools);
            } else { // 1 request that goes on
                b = body(
                    other_system,
                    "[" + shared +
                        R"(,{"role":"assistant","content":"Done."},{"role":"user","content":"Thanks."}])",
                    other_tools);
            }
            lines.push_back(record(fmt::format("q{}", i), fmt::format("s{}", i), i * 10, b));
        }
        const auto a = analyse(lines);
        const auto head = [&](std::size_t requests) {
            for (const auto& h : a.result.hot_prefixes) {
                if (h.requests == requests && h.streams == requests) {
                    return &h;
                }
            }
            return static_cast<const analysis::HotPrefix*>(nullptr);
        };
        const auto* first = head(4);
        const auto* second = head(3);
        REQUIRE(first != nullptr);
        REQUIRE(second != nullptr);
        CHECK(first->ends_at == "system[0]");
        CHECK(first->segments == 3);  // two tools and the system prompt
        CHECK(second->segments == 3); // the tool, the system prompt, the first message
        CHECK(second->ends_at != "system[0]");
    }
}
