// Placement search on logs with a poor placement: the suggested placement
// must lower the simulated cost by the amount worked out by hand, with
// claude-sonnet-4-5 prices (per million: input 3, 5m write 3.75, 1h write 6,
// read 0.30).

#include "account/auditor.hpp"
#include "advise/placement.hpp"
#include "advise/suggest.hpp"
#include "cli/lint_inputs.hpp"
#include "helpers.hpp"
#include "request_builder.hpp"

#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

using namespace cachewise;
using test::Block;
using test::make;

namespace {

advise::Suggestion
run(std::vector<model::Request> requests)
{
    model::TextStore texts;
    return advise::suggest_from_log(std::move(requests), texts, test::rules());
}

// Three requests: a 2,000-token system prompt and a different 100-token question.
std::vector<model::Request>
three_questions()
{
    std::vector<model::Request> requests;
    requests.reserve(3);
    for (int i = 0; i < 3; ++i) {
        requests.push_back(
            make({{"system", 2000}, {fmt::format("question {}", i), 100}}, 10.0 * i));
    }
    return requests;
}

} // namespace

TEST_SUITE("advise::suggest")
{
    TEST_CASE("no breakpoints at all: a breakpoint at the end of the system prompt")
    {
        const auto requests = three_questions();
        const auto s = run(requests);
        REQUIRE(s.families.size() == 1);
        const auto& f = s.families[0];
        // Now: 3 x 2,100 x 3 = 0.0189. Suggested: 2,000 x 3.75 + 100 x 3, then twice
        // 2,000 x 0.3 + 100 x 3: 0.0078 + 0.0009 + 0.0009 = 0.0096.
        CHECK(f.current.cost_usd == doctest::Approx(0.0189).epsilon(1e-9));
        CHECK(f.suggested_replay.cost_usd == doctest::Approx(0.0096).epsilon(1e-9));
        CHECK(f.current.cost_usd - f.suggested_replay.cost_usd ==
              doctest::Approx(0.0093).epsilon(1e-9));
        REQUIRE(f.suggested.marks.size() == 1);
        CHECK(f.suggested.marks[0].ttl == model::Ttl::five_minutes);
        CHECK(s.breakpoints.at("t0").size() == 1);
        CHECK(s.breakpoints.at("t0")[0].segment == 0);
    }

    TEST_CASE("the reported usage is priced beside the replays, which the ideal never exceeds")
    {
        const auto requests = three_questions();
        auto warmed = requests;
        for (auto& r : warmed) { // a provider warmed outside the log reads the system prompt
            model::Usage u;
            u.input_tokens = 100;
            u.cache_read = 2000;
            u.output_tokens = 10;
            r.usage = u;
        }
        CHECK_FALSE(run(requests).families[0].reported.has_value()); // no usage logged
        const auto s = run(warmed);
        REQUIRE(s.families.size() == 1);
        const auto& f = s.families[0];
        REQUIRE(f.reported.has_value());
        // 3 x (2,000 x 0.30 + 100 x 3) per million; output left out, as in a replay.
        CHECK(f.reported->cost_usd == doctest::Approx(0.0027).epsilon(1e-9));
        CHECK(f.reported->read == 6000);
        CHECK(f.reported->cost_usd < f.suggested_replay.cost_usd);
        CHECK(f.ideal_cost_usd <= f.suggested_replay.cost_usd);
        CHECK(f.ideal_cost_usd <= f.current.cost_usd);
    }

    TEST_CASE("a breakpoint after a timestamp: move it to the end of the tools")
    {
        // 2,500 tokens of tools, a 100-token system prompt with a timestamp, a 100-token question.
        std::vector<model::Request> requests;
        requests.reserve(3);
        for (int i = 0; i < 3; ++i) {
            requests.push_back(
                make({test::tool("tools", 2500),
                      test::system(fmt::format("Now: 2026-11-20T10:00:{:02}Z", i * 10), 100,
                                   model::Ttl::five_minutes),
                      {fmt::format("question {}", i), 100}},
                     10.0 * i));
        }
        const auto s = run(requests);
        const auto& f = s.families.at(0);
        // Now: every request writes 2,600 and reads nothing: 3 x (2,600 x 3.75 + 100 x 3) =
        // 0.03015. Suggested: 2,500 x 3.75 + 200 x 3 = 0.009975, then twice 2,500 x 0.3 + 200 x 3 =
        // 0.00135.
        CHECK(f.current.cost_usd == doctest::Approx(0.03015).epsilon(1e-9));
        CHECK(f.suggested_replay.cost_usd == doctest::Approx(0.012675).epsilon(1e-9));
        CHECK(f.current.cost_usd - f.suggested_replay.cost_usd ==
              doctest::Approx(0.017475).epsilon(1e-9));
        CHECK(f.suggested.describe() == "end of tools (5m)");
    }

    TEST_CASE("a single moving breakpoint on a conversation that grows 25 positions a turn")
    {
        // A 2,000-token system prompt, then 5, 30 and 55 ten-token user blocks; the
        // breakpoint rides on the last block. The lookback (20 positions) never
        // reaches the previous write: 2,050 + 2,300 + 2,550 written at 3.75 = 0.025875.
        const auto blocks = [](int n) {
            std::vector<Block> b{{"system", 2000}};
            for (int i = 0; i < n; ++i) {
                b.emplace_back(fmt::format("block {}", i), 10);
            }
            b.back().breakpoint = model::Ttl::five_minutes;
            return b;
        };
        const auto s = run({make(blocks(5), 0), make(blocks(30), 10), make(blocks(55), 20)});
        const auto& f = s.families.at(0);
        CHECK(f.current.cost_usd == doctest::Approx(0.025875).epsilon(1e-9));
        // The head the three share (system + 5 blocks, 2,050 tokens) is written once and read
        // twice: 2,050 x 3.75 = 0.0076875; 2,050 x 0.3 + 250 x 3 = 0.001365; 2,050 x 0.3 + 500 x 3
        // = 0.002115.
        CHECK(f.suggested_replay.cost_usd == doctest::Approx(0.0111675).epsilon(1e-9));
        CHECK(f.current.cost_usd - f.suggested_replay.cost_usd ==
              doctest::Approx(0.0147075).epsilon(1e-9));
        CHECK(f.suggested.describe() == "end of the stable head (5m)");
        CHECK(f.stable_head == 6);
    }

    TEST_CASE("audit of the log rewritten with the suggestion agrees with the replay")
    {
        const std::string path = std::string(CACHEWISE_SOURCE_DIR) + "/samples/agent-session.jsonl";
        model::TextStore texts;
        ingest::LoadOptions options;
        options.text_store = &texts;
        ingest::Loader loader(test::rules(), options);
        std::vector<model::Request> requests;
        loader.load({path}, [&](model::Request&& r) { requests.push_back(std::move(r)); });
        const auto suggestion = advise::suggest_from_log(std::move(requests), texts, test::rules());
        REQUIRE(suggestion.families.size() == 1);
        const auto& family = suggestion.families[0];
        CHECK(family.suggested_replay.cost_usd < family.current.cost_usd);

        std::ifstream in(path, std::ios::binary);
        std::ostringstream text;
        text << in.rdbuf();
        test::TempFile rewritten(advise::rewrite_input(path, text.str(), suggestion, false),
                                 "suggested.jsonl");
        model::TextStore texts2;
        options.text_store = &texts2;
        ingest::Loader loader2(test::rules(), options);
        std::vector<model::Request> replayed;
        loader2.load({rewritten.path()},
                     [&](model::Request&& r) { replayed.push_back(std::move(r)); });
        const auto audit = account::audit(std::move(replayed), texts2, test::rules(), {});
        const double input_side =
            audit.totals.expected_cost.total() - audit.totals.expected_cost.output;
        CHECK(input_side == doctest::Approx(family.suggested_replay.cost_usd).epsilon(1e-9));
        // The current placement replays to what audit expects of the original log.
        model::TextStore texts3;
        options.text_store = &texts3;
        ingest::Loader loader3(test::rules(), options);
        std::vector<model::Request> original;
        loader3.load({path}, [&](model::Request&& r) { original.push_back(std::move(r)); });
        const auto before = account::audit(std::move(original), texts3, test::rules(), {});
        CHECK(before.totals.expected_cost.total() - before.totals.expected_cost.output ==
              doctest::Approx(family.current.cost_usd).epsilon(1e-9));
    }

    TEST_CASE("placements keep at most 4 breakpoints, above the minimum, 1h before 5m")
    {
        const auto r = make(
            {test::tool("tools", 500), test::system("system", 700), {"a", 600}, {"b", 300}}, 0);
        advise::Placement p;
        p.marks = {{advise::Anchor::last_block, model::Ttl::five_minutes},
                   {advise::Anchor::end_of_system, model::Ttl::one_hour},
                   {advise::Anchor::end_of_tools, model::Ttl::one_hour},
                   {advise::Anchor::previous_turn, model::Ttl::one_hour}};
        const auto bps = advise::resolve(p, r, 0, 1024, 0.0, 4);
        // end of tools (500) is below the 1,024 minimum; the rest keep 1h before 5m.
        REQUIRE(bps.size() == 3);
        CHECK(bps[0].segment == 1);
        CHECK(bps[0].cache_control.ttl == model::Ttl::one_hour);
        CHECK(bps[1].segment == 2);
        CHECK(bps[1].cache_control.ttl == model::Ttl::one_hour);
        CHECK(bps[2].segment == 3);
        CHECK(bps[2].cache_control.ttl == model::Ttl::five_minutes);
        // A 1h mark after a 5m one is downgraded.
        advise::Placement q;
        q.marks = {{advise::Anchor::end_of_system, model::Ttl::five_minutes},
                   {advise::Anchor::last_block, model::Ttl::one_hour}};
        const auto c = advise::resolve(q, r, 0, 1024, 0.0, 4);
        REQUIRE(c.size() == 2);
        CHECK(c[1].cache_control.ttl == model::Ttl::five_minutes);
    }

    TEST_CASE("an estimated prefix is placed only with the error band to spare, as lint asks")
    {
        // End of tools at about 1,154 tokens: 923-1,385 with a 20% band,
        // what lint calls borderline against 1,024.
        auto r = make({test::tool("tools", 1154), test::system("system", 3000)}, 0);
        advise::Placement p;
        p.marks = {{advise::Anchor::end_of_tools, model::Ttl::one_hour},
                   {advise::Anchor::last_block, model::Ttl::five_minutes}};
        const auto estimated = advise::resolve(p, r, 0, 1024, 0.2, 4);
        REQUIRE(estimated.size() == 1);
        CHECK(estimated[0].segment == 1);
        // Counted with the model's tokenizer, it stands as it is.
        for (auto& s : r.segments) {
            s.token_source = model::TokenSource::exact;
        }
        CHECK(advise::resolve(p, r, 0, 1024, 0.2, 4).size() == 2);
        // A breakpoint the request has there already stays.
        for (auto& s : r.segments) {
            s.token_source = model::TokenSource::estimated;
        }
        r.segments[0].cache_control = model::CacheControl{model::Ttl::one_hour};
        CHECK(advise::resolve(p, r, 0, 1024, 0.2, 4).size() == 2);
        // The whole prompt of a request scaled to its usage is counted.
        auto short_prompt = make({test::system("system", 1100)}, 0);
        short_prompt.segments[0].token_source = model::TokenSource::calibrated;
        advise::Placement last;
        last.marks = {{advise::Anchor::last_block, model::Ttl::five_minutes}};
        CHECK(advise::resolve(last, short_prompt, 0, 1024, 0.2, 4).size() == 1);
    }

    TEST_CASE("automatic caches get no placement, and their own simulator's replay")
    {
        std::vector<model::Request> requests;
        requests.reserve(3);
        for (int i = 0; i < 3; ++i) {
            auto r = make({{"system", 2000}, {fmt::format("question {}", i), 100}}, 10.0 * i,
                          "deepseek-v4-flash");
            r.provider = "deepseek";
            requests.push_back(std::move(r));
        }
        const auto s = run(std::move(requests));
        REQUIRE(s.families.size() == 1);
        const auto& f = s.families.front();
        CHECK(f.provider == "deepseek");
        CHECK(!f.placeable);
        CHECK(f.suggested.marks.empty());
        // DeepSeek persists the common prefix once two requests share it:
        // the third reads the 2,000-token system prompt as 31 units of 64.
        CHECK(f.current.read == 1984);
        CHECK(s.breakpoints.empty());
    }

    TEST_CASE("--policy replays another cache: vLLM reuses whole blocks, places nothing")
    {
        std::vector<model::Request> requests;
        requests.reserve(3);
        for (int i = 0; i < 3; ++i) {
            requests.push_back(
                make({{"system", 2000}, {fmt::format("question {}", i), 100}}, 10.0 * i));
        }
        model::TextStore texts;
        const auto s = advise::suggest_from_log(std::move(requests), texts, test::rules(), "vllm");
        REQUIRE(s.families.size() == 1);
        CHECK(s.families.front().provider == "vllm");
        CHECK(!s.families.front().placeable);
        CHECK(s.families.front().current.read == 2 * 2000); // 125 whole blocks, twice
    }

    TEST_CASE("advice never costs more: a placement nothing beats is kept")
    {
        // A 2,000-token system prompt already cached at its end, asked three
        // different questions: the best a search can do is what the log does.
        std::vector<model::Request> requests;
        requests.reserve(3);
        for (int i = 0; i < 3; ++i) {
            requests.push_back(make({test::system("system", 2000, model::Ttl::five_minutes),
                                     {fmt::format("question {}", i), 100}},
                                    10.0 * i));
        }
        const auto s = run(requests);
        REQUIRE(s.families.size() == 1);
        const auto& f = s.families[0];
        CHECK(f.keeps_current);
        CHECK(f.suggested_replay.cost_usd == doctest::Approx(f.current.cost_usd));
        CHECK(s.breakpoints.count("t0") == 0); // left as it is: nothing to rewrite
    }

    TEST_CASE("without timestamps no advice drops a breakpoint")
    {
        std::vector<model::Request> requests;
        for (int i = 0; i < 2; ++i) {
            auto r = make({test::system("system", 2000, model::Ttl::one_hour),
                           {fmt::format("question {}", i), 100}},
                          10.0 * i);
            r.id = fmt::format("u{}", i);
            r.started_at.reset();
            r.first_token_at.reset();
            requests.push_back(std::move(r));
        }
        const auto s = run(requests);
        REQUIRE(s.families.size() == 1);
        const auto& f = s.families[0];
        CHECK(f.suggested_replay.cost_usd <= f.current.cost_usd + 1e-12);
        if (!f.keeps_current) {
            for (const auto& [id, marks] : s.breakpoints) {
                CHECK(std::any_of(marks.begin(), marks.end(),
                                  [](const auto& b) { return b.segment == 0; }));
            }
        }
    }

    TEST_CASE("one template: a turn wider than the lookback gets a mark where the last request "
              "ended, and the rewrite lints without CW015")
    {
        std::string system;
        for (int i = 0; i < 150; ++i) {
            system += "Review the ledger entries against policy 4.2 and cite the line. ";
        }
        std::string parts;
        for (int i = 0; i < 25; ++i) {
            parts += fmt::format(R"({{"type":"text","text":"log line {}: a charge"}},)", i);
        }
        const std::string body =
            R"({"model":"claude-sonnet-4-5","system":[{"type":"text","text":")" + system +
            R"("}],"messages":[{"role":"user","content":[{"type":"text","text":"Start."}]},)"
            R"({"role":"assistant","content":"Reading."},{"role":"user","content":[)" +
            parts + R"({"type":"text","text":"end","cache_control":{"type":"ephemeral"}}]}]})";
        model::TextStore texts;
        const auto s =
            advise::suggest_for_request(test::request_of(body), texts, test::rules(), {});
        std::vector<std::string> paths;
        for (const auto& b : s.breakpoints.at(s.requests.at(0).id)) {
            paths.push_back(s.requests[0].segments[b.segment].path.str());
        }
        CHECK(paths == std::vector<std::string>{"system[0]", "messages[0].content[0]",
                                                "messages[2].content[25]"});
        test::TempFile rewritten(advise::rewrite_input("t.json", body, s, true), "suggested.json");
        const auto lint = cli::lint_files({rewritten.path()}, test::rules(), {});
        CHECK(std::none_of(lint.findings.begin(), lint.findings.end(),
                           [](const analysis::Finding& f) { return f.rule == "CW015"; }));

        // With a top-level cache_control, which --write keeps on the last
        // block: no mark there, and at most 3 beside it (4 are a 400).
        const std::string automatic = R"({"cache_control":{"type":"ephemeral"},)" + body.substr(1);
        const auto a =
            advise::suggest_for_request(test::request_of(automatic), texts, test::rules(), {});
        CHECK(a.breakpoints.at(a.requests.at(0).id).size() == 2);
        test::TempFile kept(advise::rewrite_input("t.json", automatic, a, true), "kept.json");
        const auto again = cli::lint_files({kept.path()}, test::rules(), {});
        CHECK(std::none_of(
            again.findings.begin(), again.findings.end(),
            [](const analysis::Finding& f) { return f.rule == "CW013" || f.rule == "CW015"; }));
    }

    TEST_CASE("a date in an automatic cache's prompt: processed again, never 'written again'")
    {
        std::string policy;
        for (int i = 0; i < 80; ++i) {
            policy += "Section 4.2: items may be returned within thirty days with a receipt. ";
        }
        const std::string body = R"({"model":"gpt-4o","messages":[{"role":"system","content":)"
                                 R"("Today is 2026-12-07. )" +
                                 policy + R"("},{"role":"user","content":"Return a blender?"}]})";
        model::TextStore texts; // the dynamic-value scan reads the segments' text
        ingest::LoadOptions options;
        options.text_store = &texts;
        ingest::Loader loader(test::rules(), options);
        test::TempFile file(body, "template.json");
        std::vector<model::Request> requests;
        loader.load({file.path()}, [&](model::Request&& r) { requests.push_back(std::move(r)); });
        REQUIRE(requests.size() == 1);
        const auto s =
            advise::suggest_for_request(std::move(requests[0]), texts, test::rules(), {});
        REQUIRE(s.advice.size() == 1);
        CHECK(s.advice[0].find("missed and the prompt processed again") != std::string::npos);
        CHECK(s.advice[0].find("written again") == std::string::npos);
    }
}
