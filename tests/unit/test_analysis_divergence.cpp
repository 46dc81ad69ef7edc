// Fixtures for every cause of analyze, each asserting the rule, the path and
// the character offset of the earliest divergence.

#include "analysis/divergence.hpp"
#include "analysis/rule_catalogue.hpp"
#include "analysis_helpers.hpp"
#include "request_builder.hpp"
#include "util/format.hpp"

#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

using namespace cachewise;
using cachewise::test::analyse;
using cachewise::test::body;
using cachewise::test::record;

namespace {

const std::string k_system =
    R"("You are a careful coding agent. Work in small steps and explain each change.")";

// A system prompt above claude-sonnet-4-5's 1,024-token minimum: a shorter
// one is cached by nothing, and a change to it loses no tokens.
std::string
above_minimum(const std::string& system)
{
    std::string filler;
    for (int i = 0; i < 300; ++i) {
        filler += " Keep every change small and reviewable.";
    }
    return system.substr(0, system.size() - 1) + filler + "\"";
}

const std::string k_history =
    R"([{"role":"user","content":"Fix the failing test in parser.py."},{"role":"assistant","content":[{"type":"text","text":"Reading the file first."},{"type":"tool_use","id":"toolu_1","name":"read_file","input":{"path":"parser.py","lines":200}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"def parse(x):\n    return int(x)\n","cache_control":{"type":"ephemeral"}}]}])";

std::string
replace(std::string text, const std::string& from, const std::string& to)
{
    const auto at = text.find(from);
    REQUIRE_MESSAGE(at != std::string::npos, from);
    text.replace(at, from.size(), to);
    return text;
}

const analysis::Finding&
only_break(const test::Analysed& a)
{
    REQUIRE(a.load.error_count == 0);
    REQUIRE(a.result.findings.size() == 1);
    return a.result.findings[0];
}

} // namespace

TEST_SUITE("analysis::divergence")
{
    TEST_CASE("append-only growth with a turn of 30 parallel tool calls is no break")
    {
        std::string uses;
        std::string results;
        for (int i = 0; i < 30; ++i) {
            uses += fmt::format(
                R"(,{{"type":"tool_use","id":"toolu_p{}","name":"read_file","input":{{"path":"f{}.py"}}}})",
                i, i);
            results += fmt::format(
                R"({}{{"type":"tool_result","tool_use_id":"toolu_p{}","content":"line {}"}})",
                i == 0 ? "" : ",", i, i);
        }
        const std::string grown = replace(
            k_history, R"("cache_control":{"type":"ephemeral"}}]}])",
            R"("cache_control":{"type":"ephemeral"}}]},{"role":"assistant","content":[{"type":"text","text":"Reading all modules."})" +
                uses + R"(]},{"role":"user","content":[)" + results + "]}]");
        const auto a = analyse({record("r1", "s", 0, body(k_system, k_history)),
                                record("r2", "s", 20, body(k_system, grown))});
        CHECK(a.result.findings.empty());
        CHECK(a.result.extends == 1);
        CHECK(a.result.outcomes[1].partner == "r1");
        CHECK(a.result.outcomes[1].shared_tokens == a.result.outcomes[0].prompt_tokens);
    }

    TEST_CASE("a whitespace-only re-serialisation is no break")
    {
        const std::string compact = body(k_system, k_history);
        std::string loose;
        bool in_string = false;
        for (std::size_t i = 0; i < compact.size(); ++i) {
            const char c = compact[i];
            loose.push_back(c);
            if (c == '"' && compact[i - 1] != '\\') {
                in_string = !in_string;
            }
            if (!in_string && (c == ',' || c == ':' || c == '{' || c == '[')) {
                loose += "\n  ";
            }
        }
        REQUIRE(loose != compact);
        // A pretty-printed record is not one line: give it as one request document each.
        const auto a =
            analyse({record("r1", "s", 0, compact),
                     record("r2", "s", 20,
                            replace(compact, "\"max_tokens\":512", "\"max_tokens\" :  512"))});
        CHECK(a.result.findings.empty());
        CHECK(a.result.extends == 1);
        const auto r1 = test::request_of(compact);
        const auto r2 = test::load_text(loose, ingest::InputFormat::request, "r.json");
        REQUIRE(r2.requests.size() == 1);
        CHECK(r1.segments.back().chain == r2.requests[0].segments.back().chain);
    }

    TEST_CASE("CW001 system: an edit inside the cached system prompt")
    {
        const std::string edited =
            R"("You are a careful coding agent. Work in large steps and explain each change.")";
        const auto a = analyse({record("r1", "s", 0, body(above_minimum(k_system), k_history)),
                                record("r2", "s", 20, body(above_minimum(edited), k_history))});
        const auto& f = only_break(a);
        CHECK(f.rule == "CW001");
        CHECK(f.name == "prefix-changed");
        CHECK(f.kind == "system");
        CHECK(f.request == "r2");
        CHECK(f.partner == "r1");
        CHECK(f.location.path == "system[0]");
        CHECK(f.location.offset ==
              40); // "You are a careful coding agent. Work in " is 40 characters
        CHECK(f.excerpt->was.find("in «small» steps") != std::string::npos);
        CHECK(f.excerpt->now.find("in «large» steps") != std::string::npos);
        CHECK(f.tokens_lost > 0);
        CHECK(f.cost_usd.has_value());
    }

    TEST_CASE("CW001 history-rewritten: an earlier message edited")
    {
        const std::string edited =
            replace(k_history, "Reading the file first.", "Reading the file now.");
        const auto a = analyse({record("r1", "s", 0, body(k_system, k_history)),
                                record("r2", "s", 20, body(k_system, edited))});
        const auto& f = only_break(a);
        CHECK(f.rule == "CW001");
        CHECK(f.kind == "history-rewritten");
        CHECK(f.location.path == "messages[1].content[0]");
        CHECK(f.location.offset == 17); // "Reading the file " is 17 characters
    }

    TEST_CASE("CW001 message: the partner's latest message changed")
    {
        const std::string edited = replace(k_history, "return int(x)", "return float(x)");
        const auto a = analyse({record("r1", "s", 0, body(k_system, k_history)),
                                record("r2", "s", 20, body(k_system, edited))});
        const auto& f = only_break(a);
        CHECK(f.rule == "CW001");
        CHECK(f.kind == "message");
        CHECK(f.location.path == "messages[2].content[0]");
        CHECK(f.location.offset == 25); // "def parse(x):\n    return " is 25 characters
    }

    TEST_CASE("CW002 tools-changed: a tool added, and a description changed")
    {
        const std::string more = replace(
            test::tools_json(), "]}}]",
            R"(]}},{"name":"write_file","description":"Write a file.","input_schema":{"type":"object"}}])");
        auto a = analyse({record("r1", "s", 0, body(k_system, k_history)),
                          record("r2", "s", 20, body(k_system, k_history, more))});
        auto f = only_break(a);
        CHECK(f.rule == "CW002");
        CHECK(f.kind == "added");
        CHECK(f.location.path == "tools[2]");
        CHECK(f.message.find("added write_file") != std::string::npos);

        const std::string described =
            replace(test::tools_json(), "Run a shell command.", "Run one shell command.");
        a = analyse({record("r1", "s", 0, body(k_system, k_history)),
                     record("r2", "s", 20, body(k_system, k_history, described))});
        f = only_break(a);
        CHECK(f.rule == "CW002");
        CHECK(f.kind == "changed");
        CHECK(f.location.path == "tools[1]");
        CHECK(f.message.find("run") != std::string::npos);
        CHECK(f.excerpt->now.find("«one»") != std::string::npos);
    }

    TEST_CASE("CW003 tools-reordered")
    {
        const std::string tools = test::tools_json();
        const auto split = tools.find(R"(,{"name":"run")");
        const std::string swapped = "[" + tools.substr(split + 1, tools.size() - split - 2) + "," +
                                    tools.substr(1, split - 1) + "]";
        const auto a = analyse({record("r1", "s", 0, body(k_system, k_history)),
                                record("r2", "s", 20, body(k_system, k_history, swapped))});
        const auto& f = only_break(a);
        CHECK(f.rule == "CW003");
        CHECK(f.location.path == "tools[0]");
        CHECK(f.location.offset == 0);
        CHECK(f.message.find("read_file, run → run, read_file") != std::string::npos);
    }

    TEST_CASE("CW004 serialization-drift: a key-order change in a tool_use input, not CW001")
    {
        const std::string swapped = replace(k_history, R"({"path":"parser.py","lines":200})",
                                            R"({"lines":200,"path":"parser.py"})");
        const auto a = analyse({record("r1", "s", 0, body(k_system, k_history)),
                                record("r2", "s", 20, body(k_system, swapped))});
        const auto& f = only_break(a);
        CHECK(f.rule == "CW004");
        CHECK(f.name == "serialization-drift");
        CHECK(f.location.path == "messages[1].content[1]");
        // In the canonical JSON {"id":"toolu_1","input":{"path":... the keys part after 26
        // characters.
        CHECK(f.location.offset == 26);
    }

    TEST_CASE("CW004 also for number formatting in a schema")
    {
        const std::string tools = replace(test::tools_json(), R"("required":["path"])",
                                          R"("required":["path"],"maxLength":100)");
        const std::string other = replace(tools, R"("maxLength":100)", R"("maxLength":100.0)");
        const auto a = analyse({record("r1", "s", 0, body(k_system, k_history, tools)),
                                record("r2", "s", 20, body(k_system, k_history, other))});
        const auto& f = only_break(a);
        CHECK(f.rule == "CW004");
        CHECK(f.location.path == "tools[0]");
    }

    TEST_CASE("a first message that differs in a later block is a new conversation, not CW001")
    {
        // Two recordings of one test that upload different files: the head is
        // equal, the first user message differs in its second block.
        const auto first = [](const std::string& file_id) {
            return fmt::format(
                R"([{{"role":"user","content":[{{"type":"text","text":"Summarise the attached file."}},{{"type":"text","text":"file {}","cache_control":{{"type":"ephemeral"}}}}]}}])",
                file_id);
        };
        const auto a = analyse(
            {record("r1", "s", 0, body(k_system, first("file_011CcaGs24UqTfYHgDWn7trH"))),
             record("r2", "s", 20, body(k_system, first("file_011CcaGpPS2JA1AMya8VxEMh")))});
        CHECK(a.result.findings.empty());
        CHECK(a.result.outcomes[1].status == analysis::RequestOutcome::Status::branched);
        CHECK(a.result.dynamic_fields.empty()); // ids of uploaded files are not dynamic fields
    }

    TEST_CASE("CW005 scope-changed: tool_choice invalidates the messages level only")
    {
        const auto a = analyse({record("r1", "s", 0, body(k_system, k_history)),
                                record("r2", "s", 20,
                                       body(k_system, k_history, test::tools_json(),
                                            R"(,"tool_choice":{"type":"any"})"))});
        const auto& f = only_break(a);
        CHECK(f.rule == "CW005");
        CHECK(f.kind == "tool_choice");
        CHECK(f.location.path == "messages[0].content");
        CHECK(f.message.find("invalidates the messages level") != std::string::npos);
        CHECK(a.result.outcomes[1].shared_tokens > 0); // tools and system still shared
    }

    TEST_CASE("CW005 scope-changed: a model switch within a stream shares nothing")
    {
        const std::string other =
            replace(body(k_system, k_history), "claude-sonnet-4-5", "claude-haiku-4-5");
        const auto a = analyse(
            {record("r1", "s", 0, body(k_system, k_history)), record("r2", "s", 20, other)});
        const auto& f = only_break(a);
        CHECK(f.rule == "CW005");
        CHECK(f.kind == "model");
        CHECK(f.location.path == "tools[0]");
        CHECK(f.message.find("claude-sonnet-4-5 → claude-haiku-4-5") != std::string::npos);
    }

    TEST_CASE("CW010 dynamic-field: a date line inside a cached system block")
    {
        const std::string day1 =
            R"("You are a support agent.\nToday's date: 2026-11-20.\nAnswer politely and cite the manual.")";
        const std::string day2 = replace(day1, "2026-11-20", "2026-11-21");
        const auto a = analyse({record("r1", "s", 0, body(day1, k_history)),
                                record("r2", "s", 20, body(day2, k_history))});
        const auto& f = only_break(a);
        CHECK(f.rule == "CW010");
        CHECK(f.name == "dynamic-field");
        CHECK(f.kind == "date");
        CHECK(f.location.path == "system[0]");
        // "You are a support agent.\nToday's date: 2026-11-2" is 48 characters.
        CHECK(f.location.offset == 48);
        CHECK(f.excerpt->was.find("2026-11-2«0»") != std::string::npos);
    }

    TEST_CASE("CW010 credential for a rotated key: its kind in the message, CW040's fix, not "
              "random-token")
    {
        const std::string with_key1 =
            R"("You are a release agent.\nUse STATUS_API_KEY=sk-proj-Qx7fLm2Rt9Vb4Nw8Kc3Hd6Zp1Sy5Gj0Ue2A for the status API.\nConfirm before restarting.")";
        const std::string with_key2 = replace(with_key1, "Qx7fLm2Rt9Vb4Nw8Kc3Hd6Zp1Sy5Gj0Ue2A",
                                              "Wd3Jn8Ps6Yc1Kv5Rb9Hx2Mq7Lt4Ge0Zf6N");
        const auto a = analyse({record("r1", "s", 0, body(with_key1, k_history)),
                                record("r2", "s", 20, body(with_key2, k_history))});
        const auto& f = only_break(a);
        CHECK(f.rule == "CW010");
        CHECK(f.kind == "credential");
        CHECK(f.message.find("a credential (openai-key) changed") != std::string::npos);
        CHECK(f.message.find("CW040") != std::string::npos);
        // The excerpts mask the key whole: none of its changed characters shows.
        CHECK(f.excerpt->was.find("Qx7f") == std::string::npos);
        CHECK(f.excerpt->now.find("Wd3J") == std::string::npos);
    }

    TEST_CASE("a key in a cold-start prompt is not also a random-token dynamic field")
    {
        const std::string system = above_minimum(
            R"("You are a release agent.\nUse STATUS_API_KEY=sk-proj-Qx7fLm2Rt9Vb4Nw8Kc3Hd6Zp1Sy5Gj0Ue2A for the status API.\nToday's date: 2026-11-20.")");
        const auto a = analyse({record("r1", "s", 0, body(system, k_history))});
        REQUIRE(a.result.dynamic_fields.size() == 1);
        CHECK(a.result.dynamic_fields[0].kind == "date");
    }

    TEST_CASE("CW010 in a cold-start prompt spoils the whole entry of a breakpoint cache")
    {
        // The tools carry no breakpoint: entries exist only at the end of
        // the system prompt and of the history, so a new date is written
        // again with everything around it, the tools before it included.
        const std::string system = above_minimum(
            R"("You are a support agent.\nToday's date: 2026-11-20.\nAnswer politely.")");
        const auto a = analyse({record("r1", "s", 0, body(system, k_history))});
        REQUIRE(a.result.dynamic_fields.size() == 1);
        const auto& f = a.result.dynamic_fields[0];
        CHECK(f.location.path == "system[0]");
        CHECK(f.tokens_lost == a.result.outcomes[0].prompt_tokens);
        CHECK(f.message.find("would spoil " + cachewise::group_digits(f.tokens_lost) +
                             " cached tokens") != std::string::npos);
    }

    TEST_CASE("CW010 in a cold-start prompt below the minimum spoils nothing, and says why")
    {
        const std::string system =
            R"("You are a support agent.\nToday's date: 2026-11-20.\nAnswer politely.")";
        const auto a = analyse({record("r1", "s", 0, body(system, k_history))});
        REQUIRE(a.result.dynamic_fields.size() == 1);
        const auto& f = a.result.dynamic_fields[0];
        CHECK(f.tokens_lost == 0);
        CHECK(f.message.find("below the model's minimum cacheable length") != std::string::npos);
    }

    TEST_CASE("CW010 without a pattern: the same place changing in three consecutive requests")
    {
        std::vector<std::string> lines;
        for (int i = 0; i < 4; ++i) {
            const std::string system =
                fmt::format(R"("You are an agent. Mood of the day: {}. Be helpful.")",
                            std::vector<std::string>{"sunny", "rainy", "windy", "foggy"}[i]);
            lines.push_back(record(fmt::format("r{}", i), "s", 30 * i, body(system, k_history)));
        }
        const auto a = analyse(lines);
        REQUIRE(a.result.findings.size() == 3);
        for (const auto& f : a.result.findings) {
            CHECK(f.rule == "CW010");
            CHECK(f.kind == "changing");
            CHECK(f.location.path == "system[0]");
        }
    }

    TEST_CASE("tokens lost on a breakpoint cache: from its last breakpoint before the change")
    {
        // The tools carry no breakpoint, so no entry ends there: an edit of
        // the system prompt loses the tools' tokens too, as audit's
        // simulator reads nothing back.
        const std::string day1 = above_minimum(R"("You are an agent. Mood of the day: sunny.")");
        const std::string day2 = replace(day1, "sunny", "rainy");
        const auto a = analyse({record("r1", "s", 0, body(day1, k_history)),
                                record("r2", "s", 20, body(day2, k_history))});
        const auto& f = only_break(a);
        CHECK(f.location.path == "system[0]");
        CHECK(f.tokens_lost == a.result.outcomes[0].prompt_tokens);
    }

    TEST_CASE("two changes are no run: they stay CW001")
    {
        std::vector<std::string> lines;
        for (int i = 0; i < 3; ++i) {
            const std::string system =
                fmt::format(R"("You are an agent. Mood: {}.")",
                            std::vector<std::string>{"sunny", "rainy", "windy"}[i]);
            lines.push_back(record(fmt::format("r{}", i), "s", 30 * i, body(system, k_history)));
        }
        const auto a = analyse(lines);
        REQUIRE(a.result.findings.size() == 2);
        CHECK(a.result.findings[0].rule == "CW001");
    }

    TEST_CASE(
        "tokens lost: up to the partner's last breakpoint, or the whole remainder without one")
    {
        // The change is in the system prompt; the partner cached through its last message.
        const std::string edited =
            R"("You are a careful coding agent. Work in large steps and explain each change.")";
        const auto a = analyse({record("r1", "s", 0, body(above_minimum(k_system), k_history)),
                                record("r2", "s", 20, body(above_minimum(edited), k_history))});
        const auto& f = only_break(a);
        const auto& partner = a.result.outcomes[0];
        const std::int64_t tools_tokens = f.location.token.value_or(0) - 0;
        CHECK(f.tokens_lost <= partner.prompt_tokens);
        CHECK(f.tokens_lost >= partner.prompt_tokens - tools_tokens - 50);
    }

    TEST_CASE("tokens lost: none when the partner's cached prefix is below the minimum")
    {
        // Rule "minimum cacheable length": a shorter prefix is processed
        // without caching, so the edit loses nothing (analyze as audit).
        const std::string edited =
            R"("You are a careful coding agent. Work in large steps and explain each change.")";
        const auto a = analyse({record("r1", "s", 0, body(k_system, k_history)),
                                record("r2", "s", 20, body(edited, k_history))});
        const auto& f = only_break(a);
        CHECK(a.result.outcomes[0].prompt_tokens < 1024);
        CHECK(f.tokens_lost == 0);
        CHECK(!f.cost_usd.has_value());
        CHECK(f.message.find("nothing of it was cached") != std::string::npos);
    }

    TEST_CASE("without any cache_control an Anthropic prompt cached nothing: an edit is latent")
    {
        // "Prompt caching" writes only at breakpoints (rules/providers/
        // anthropic.json breakpoint_models): no tokens were lost, and the
        // rewrite is named for the day a breakpoint is added.
        const auto no_marks = [](const std::string& b) {
            return replace(replace(b, R"(,"cache_control":{"type":"ephemeral"})", ""),
                           R"(,"cache_control":{"type":"ephemeral"})", "");
        };
        const std::string edited =
            replace(k_history, "Reading the file first.", "Reading the file now.");
        const auto a = analyse({record("r1", "s", 0, no_marks(body(k_system, k_history))),
                                record("r2", "s", 20, no_marks(body(k_system, edited)))});
        CHECK(a.result.findings.empty());
        CHECK(a.result.tokens_lost == 0);
        CHECK(a.result.uncached == 1);
        REQUIRE(a.result.latent.size() == 1);
        const auto& f = a.result.latent[0];
        CHECK(f.rule == "CW001");
        CHECK(f.kind == "latent-history-rewritten");
        CHECK(f.severity == analysis::Severity::info);
        CHECK(f.tokens_lost == 0);
        CHECK(f.message.find("would be lost") != std::string::npos);
        CHECK(f.message.find("r1 has no cache_control") != std::string::npos);
    }

    TEST_CASE("a partner whose log drops cache_control (Claude Code) still breaks")
    {
        using test::Block;
        auto was = test::make(
            {test::system("sys", 1000), Block("m0", 100), Block("m1", 100), Block("m2", 100)}, 0);
        auto now = test::make({test::system("sys", 1000), Block("m0", 100), Block("m1 edited", 100),
                               Block("m2", 100), Block("m3", 10)},
                              10);
        model::TextStore texts;
        const analysis::DynamicFieldMatcher matcher(test::rules().dynamic_fields);
        const model::TokenEstimator estimator(test::rules().tokens);
        const analysis::DivergenceContext context{test::rules(), texts, matcher, estimator};
        for (auto* r : {&was, &now}) {
            r->provider = "anthropic";
        }
        CHECK_FALSE(analysis::find_divergence(now, was, context).has_value());
        CHECK(analysis::find_latent(now, was, context).has_value());
        was.breakpoints_logged = false;
        now.breakpoints_logged = false;
        const auto f = analysis::find_divergence(now, was, context);
        REQUIRE(f.has_value());
        CHECK(f->rule == "CW001");
        CHECK(f->tokens_lost > 0);
        CHECK_FALSE(analysis::find_latent(now, was, context).has_value());
    }

    TEST_CASE("a change after the partner's last breakpoint loses nothing cached")
    {
        // Only the system prompt is cached; the last message changes.
        const std::string uncached =
            replace(k_history, R"(,"cache_control":{"type":"ephemeral"})", "");
        const std::string edited = replace(uncached, "return int(x)", "return float(x)");
        const auto a = analyse({record("r1", "s", 0, body(k_system, uncached)),
                                record("r2", "s", 20, body(k_system, edited))});
        CHECK(a.result.findings.empty());
        CHECK(a.result.uncached == 1);
    }
}
