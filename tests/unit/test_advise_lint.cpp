#include "advise/lint.hpp"
#include "analysis/rule_catalogue.hpp"
#include "cli/lint_inputs.hpp"
#include "helpers.hpp"
#include "report/findings_printer.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <sstream>

using namespace cachewise;

namespace {

std::vector<analysis::Finding>
lint_text(const std::string& text, const advise::LintOptions& options = {})
{
    test::TempFile file(text, "request.json");
    return cli::lint_files({file.path()}, test::rules(), options).findings;
}

const analysis::Finding*
find(const std::vector<analysis::Finding>& findings, const std::string& rule)
{
    for (const auto& f : findings) {
        if (f.rule == rule) {
            return &f;
        }
    }
    return nullptr;
}

std::string
words(int n)
{
    std::string out;
    for (int i = 0; i < n; ++i) {
        out += "Always answer with the section of the manual that applies. ";
    }
    return out;
}

} // namespace

TEST_SUITE("advise::lint")
{
    TEST_CASE("CW010: a placeholder before the last breakpoint, at its line and column")
    {
        const std::string text = "{\n  \"model\": \"claude-sonnet-4-5\",\n  \"system\": "
                                 "[{\"type\": \"text\", \"text\": \"Hello {{name}}. " +
                                 words(300) +
                                 "\", \"cache_control\": {\"type\": \"ephemeral\"}}],\n  "
                                 "\"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]\n}\n";
        const auto findings = lint_text(text);
        const auto* f = find(findings, "CW010");
        REQUIRE(f != nullptr);
        CHECK(f->kind == "placeholder");
        CHECK(f->location.path == "system[0]");
        CHECK(f->location.offset == 6);
        CHECK(f->line == 3);
        CHECK(f->column == 46); // the first brace of {{name}}
        CHECK(f->excerpt->now.find("«{{name}}»") != std::string::npos);
    }

    TEST_CASE("CW010 in a tool definition points at the value, whatever the key order")
    {
        // The tool is pretty-printed, its schema before its description, and
        // an escape and an accent come before the value: the finding's column
        // is the timestamp's, not the tool object's.
        const std::string text =
            "{\"model\": \"claude-sonnet-4-5\",\n \"tools\": [{\n  \"input_schema\": "
            "{\"type\": \"object\"},\n  \"name\": \"search\",\n  \"description\": "
            "\"R\\u00e9sum\u00e9 index\\n rebuilt at 2026-12-07T09:14:22Z for all lookups\"\n "
            "}],\n "
            "\"system\": [{\"type\": \"text\", \"text\": \"" +
            words(300) +
            "\", \"cache_control\": {\"type\": \"ephemeral\"}}],\n \"messages\": "
            "[{\"role\": \"user\", \"content\": \"hi\"}]}\n";
        const auto findings = lint_text(text);
        const auto* f = find(findings, "CW010");
        REQUIRE(f != nullptr);
        CHECK(f->location.path == "tools[0]");
        CHECK(f->line == 5);
        const std::string line5 = "  \"description\": \"R\\u00e9sum\u00e9 index\\n rebuilt at ";
        // Columns count characters: the accent is one.
        CHECK(f->column == line5.size());
    }

    TEST_CASE("CW011 behind a literal that may be static says both what it is and what to do")
    {
        // A short head, a schedule time that reads like a clock value, then
        // a long stable text: the prefix before the time is below the
        // minimum, the whole prompt above it.
        const std::string text = R"({"model":"claude-sonnet-4-5","system":"Acme support. The )"
                                 R"(nightly maintenance window starts at 11:30 PM UTC. )" +
                                 words(300) + R"(","messages":[{"role":"user","content":"hi"}]})";
        const auto findings = lint_text(text);
        const auto* f = find(findings, "CW011");
        REQUIRE(f != nullptr);
        CHECK(f->message.find("if a time value in system is a literal") != std::string::npos);
        CHECK(f->message.find("move it after them first") != std::string::npos);
        CHECK(f->tokens_lost > 1024);
    }

    TEST_CASE("a route's parameter in a path is not a placeholder; a name in braces is")
    {
        const auto placeholders = [&](const std::string& sentence) {
            const std::string text = R"({"model":"claude-sonnet-4-5","system":")" + sentence + " " +
                                     words(300) +
                                     R"(","messages":[{"role":"user","content":"hi"}]})";
            std::size_t n = 0;
            for (const auto& f : lint_text(text)) {
                n += f.rule == "CW010" && f.kind == "placeholder" ? 1 : 0;
            }
            return n;
        };
        CHECK(placeholders("Restore with POST /v2/files/{file_id}/restore or GET "
                           "/v2/files/{file_id}.") == 0);
        CHECK(placeholders("Greet {customer} by name.") == 1);
        CHECK(placeholders("Open https://example.com/{{tenant}}/home first.") == 1);
        CHECK(placeholders("Open https://example.com/${tenant}/home first.") == 1);
    }

    TEST_CASE("CW011: a placeholder in the last message ends the stable prefix before it")
    {
        const std::string stable = R"({"model":"claude-sonnet-4-5","system":")" + words(300) +
                                   R"(","messages":[{"role":"user","content":"hi"}]})";
        const std::string filled = R"({"model":"claude-sonnet-4-5","system":")" + words(300) +
                                   R"(","messages":[{"role":"user","content":"{{question}}"}]})";
        const auto without = lint_text(stable);
        const auto* whole = find(without, "CW011");
        const auto with_placeholder = lint_text(filled);
        const auto* before = find(with_placeholder, "CW011");
        REQUIRE(whole != nullptr);
        REQUIRE(before != nullptr);
        CHECK(before->tokens_lost < whole->tokens_lost);
        CHECK(before->message.find("add a breakpoint at its end") != std::string::npos);
    }

    TEST_CASE("CW011: no breakpoint on a prompt whose stable prefix reaches the minimum")
    {
        const std::string text = R"({"model":"claude-sonnet-4-5","system":")" + words(300) +
                                 R"(","messages":[{"role":"user","content":"hi"}]})";
        const auto all = lint_text(text);
        const auto* f = find(all, "CW011");
        REQUIRE(f != nullptr);
        CHECK(f->tokens_lost > 1024);
        CHECK(!find(
            lint_text(
                R"({"model":"claude-sonnet-4-5","messages":[{"role":"user","content":"short"}]})"),
            "CW011"));
    }

    TEST_CASE("CW012: below the minimum, and borderline when the error band straddles it")
    {
        const std::string small =
            R"({"model":"claude-haiku-4-5","system":[{"type":"text","text":"Be brief.","cache_control":{"type":"ephemeral"}}],"messages":[{"role":"user","content":"hi"}]})";
        const auto small_findings = lint_text(small);
        const auto* f = find(small_findings, "CW012");
        REQUIRE(f != nullptr);
        CHECK(f->kind.empty());
        CHECK(f->message.find("below the claude-haiku-4-5 minimum of 4,096") != std::string::npos);
        CHECK(f->message.find("±20%") != std::string::npos);
        // About 4,000 tokens against 4,096: within the band.
        const std::string near =
            R"({"model":"claude-haiku-4-5","system":[{"type":"text","text":")" + words(355) +
            R"(","cache_control":{"type":"ephemeral"}}],"messages":[{"role":"user","content":"hi"}]})";
        const auto near_findings = lint_text(near);
        const auto* b = find(near_findings, "CW012");
        REQUIRE(b != nullptr);
        CHECK(b->kind == "borderline");
    }

    TEST_CASE("CW013, CW014, CW015, CW016")
    {
        std::string blocks;
        for (int i = 0; i < 4; ++i) {
            blocks += fmt::format(
                R"({{"type":"text","text":"{} part {}","cache_control":{{"type":"ephemeral"}}}},)",
                words(40), i);
        }
        const std::string five =
            R"({"model":"claude-sonnet-4-5","cache_control":{"type":"ephemeral"},"system":[)" +
            blocks.substr(0, blocks.size() - 1) +
            R"(],"messages":[{"role":"user","content":"hi"}]})";
        CHECK(find(lint_text(five), "CW013"));

        const std::string order =
            R"({"model":"claude-sonnet-4-5","system":[{"type":"text","text":")" + words(40) +
            R"(","cache_control":{"type":"ephemeral"}},{"type":"text","text":"more","cache_control":{"type":"ephemeral","ttl":"1h"}}],"messages":[{"role":"user","content":"hi"}]})";
        const auto order_findings = lint_text(order);
        const auto* ttl = find(order_findings, "CW014");
        REQUIRE(ttl != nullptr);
        CHECK(ttl->location.path == "system[1]");
        // At the marker the API refuses, not at the block's text.
        const auto marker = order.find(R"({"type":"ephemeral","ttl":"1h"})");
        CHECK(ttl->line == 1);
        CHECK(ttl->column == marker + 1);

        std::string many;
        for (int i = 0; i < 25; ++i) {
            many += fmt::format(R"({{"role":"{}","content":"turn {}"}},)",
                                i % 2 == 0 ? "user" : "assistant", i);
        }
        const std::string far =
            R"({"model":"claude-sonnet-4-5","system":[{"type":"text","text":")" + words(40) +
            R"(","cache_control":{"type":"ephemeral"}}],"messages":[)" + many +
            R"({"role":"assistant","content":[{"type":"text","text":"end","cache_control":{"type":"ephemeral"}}]}]})";
        // A conversation that grew a turn at a time: the previous request
        // wrote two blocks back, within reach of the last breakpoint.
        CHECK(!find(lint_text(far), "CW015"));
        // A turn that appends 25 blocks after the reply: the previous
        // request's entry is out of reach.
        const auto grown = [](int system_words, int appended, bool mark_previous) {
            std::string parts;
            for (int i = 0; i < appended; ++i) {
                parts += fmt::format(R"({{"type":"text","text":"part {}"}},)", i);
            }
            return R"({"model":"claude-sonnet-4-5","system":[{"type":"text","text":")" +
                   words(system_words) +
                   R"(","cache_control":{"type":"ephemeral"}}],"messages":[{"role":"user","content":[{"type":"text","text":"hi")" +
                   (mark_previous ? R"(,"cache_control":{"type":"ephemeral"})" : "") +
                   R"(}]},{"role":"assistant","content":"ok"},{"role":"user","content":[)" + parts +
                   R"({"type":"text","text":"end","cache_control":{"type":"ephemeral"}}]}]})";
        };
        const auto far_findings = lint_text(grown(200, 25, false));
        const auto* look = find(far_findings, "CW015");
        REQUIRE(look != nullptr);
        CHECK(look->location.path == "messages[2].content[25]");
        // The window counts the breakpoint itself (rule "The lookback
        // window is 20 blocks"), as the simulator does: from the previous
        // request's end, the reply and 18 blocks make 20 positions; one more
        // block and that end is the 21st.
        CHECK(!find(lint_text(grown(200, 17, false)), "CW015"));
        const auto just_past = lint_text(grown(200, 18, false));
        const auto* past = find(just_past, "CW015");
        REQUIRE(past != nullptr);
        CHECK(past->message.starts_with("21 lookback positions"));
        // A breakpoint where the previous request ended reads its entry.
        CHECK(!find(lint_text(grown(200, 25, true)), "CW015"));
        // A previous prompt below the minimum wrote nothing to miss.
        CHECK(!find(lint_text(grown(40, 25, false)), "CW015"));

        const std::string thinking =
            R"({"model":"claude-sonnet-4-5","messages":[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"thinking","thinking":"hmm","signature":"s","cache_control":{"type":"ephemeral"}}]}]})";
        const auto thinking_findings = lint_text(thinking);
        const auto* bad = find(thinking_findings, "CW016");
        REQUIRE(bad != nullptr);
        CHECK(bad->severity == analysis::Severity::error);
    }

    TEST_CASE("CW019: a block type the API's table does not name")
    {
        const auto findings = lint_text(
            R"({"model":"claude-sonnet-4-5","system":[{"type":"txt","text":"Be brief."}],)"
            R"("messages":[{"role":"user","content":[{"type":"container_upload","file_id":"f"},)"
            R"({"type":"text","text":"hi"}]}]})");
        const auto* f = find(findings, "CW019");
        REQUIRE(f != nullptr);
        CHECK(f->location.path == "system[0]");
        CHECK(f->message.find(R"(type "txt", which cachewise does not know for a Messages API )"
                              "content block (text, tool_use,") != std::string::npos);
        // A documented type the readers take as other content is not flagged.
        CHECK(std::count_if(findings.begin(), findings.end(),
                            [](const auto& x) { return x.rule == "CW019"; }) == 1);
        // Inside a tool_result, whose content blocks are content blocks too.
        const auto nested = lint_text(
            R"({"model":"claude-sonnet-4-5","messages":[{"role":"user","content":[{"type":)"
            R"("tool_result","tool_use_id":"t1","content":[{"type":"text","text":"ok"},)"
            R"({"type":"imag","source":{}}]}]}]})");
        const auto* inner = find(nested, "CW019");
        REQUIRE(inner != nullptr);
        CHECK(inner->location.path == "messages[0].content[0].content[1]");
        // A Chat tool message's parts and a Responses function output's too.
        const auto chat_tool = lint_text(
            R"({"model":"gpt-4.1","messages":[{"role":"user","content":"hi"},{"role":"assistant",)"
            R"("content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f",)"
            R"("arguments":"{}"}}]},{"role":"tool","tool_call_id":"c1","content":[{"type":"txt",)"
            R"("text":"ok"}]}]})");
        const auto* tool_part = find(chat_tool, "CW019");
        REQUIRE(tool_part != nullptr);
        CHECK(tool_part->location.path == "messages[2].content[0]");
        const auto output = lint_text(
            R"({"model":"gpt-5","input":[{"role":"user","content":"hi"},{"type":"function_call",)"
            R"("call_id":"c1","name":"f","arguments":"{}"},{"type":"function_call_output",)"
            R"("call_id":"c1","output":[{"type":"input_text","text":"ok"},{"type":"input_txt",)"
            R"("text":"no"}]}]})");
        const auto* output_part = find(output, "CW019");
        REQUIRE(output_part != nullptr);
        CHECK(output_part->location.path == "input[2].output[1]");
        const auto responses = lint_text(
            R"({"model":"gpt-5","input":[{"role":"user","content":[{"type":"input_txt","text":"hi"}]}]})");
        const auto* part = find(responses, "CW019");
        REQUIRE(part != nullptr);
        CHECK(part->message.find("a Responses content part (input_text,") != std::string::npos);
    }

    TEST_CASE("CW017: dynamic content ahead of stable content")
    {
        const std::string text =
            R"({"model":"claude-sonnet-4-5","system":[{"type":"text","text":"Today is {{date}}."},{"type":"text","text":")" +
            words(300) + R"("}],"messages":[{"role":"user","content":"hi"}]})";
        const auto findings = lint_text(text);
        const auto* f = find(findings, "CW017");
        REQUIRE(f != nullptr);
        CHECK(f->location.path == "system[0]");
        CHECK(f->tokens_lost > 1024);
        CHECK(find(findings, "CW010")); // before a long stable tail, with no breakpoint
    }

    TEST_CASE("CW018: GPT-5.6 writes the latest 4 markers in explicit mode, 3 in implicit mode")
    {
        const auto body = [](const std::string& options, int markers) {
            std::string blocks;
            for (int i = 0; i < markers; ++i) {
                blocks += fmt::format(
                    R"({}{{"type":"text","text":"Part {}. {}","prompt_cache_breakpoint":{{"mode":"explicit"}}}})",
                    i == 0 ? "" : ",", i, words(i == 0 ? 200 : 1));
            }
            return R"({"model":"gpt-5.6",)" + options +
                   R"("messages":[{"role":"developer","content":[)" + blocks +
                   R"(]},{"role":"user","content":"hi"}]})";
        };
        const std::string explicit_mode = R"("prompt_cache_options":{"mode":"explicit"},)";
        CHECK(find(lint_text(body(explicit_mode, 4)), "CW018") == nullptr);
        const auto five = lint_text(body(explicit_mode, 5));
        const auto* f = find(five, "CW018");
        REQUIRE(f != nullptr);
        CHECK(f->location.path == "messages[0].content[0]");
        CHECK(f->severity == analysis::Severity::warning);
        // Implicit mode: the implicit breakpoint and the latest 3.
        CHECK(find(lint_text(body("", 3)), "CW018") == nullptr);
        const auto four = lint_text(body("", 4));
        REQUIRE(find(four, "CW018") != nullptr);
        CHECK(find(four, "CW018")->message.find("implicit mode writes the latest 3") !=
              std::string::npos);
    }

    TEST_CASE(
        "CW010: the conversation's head is scanned, its history from the first reply on is not")
    {
        // A body from a log (turn 2): the assistant's past answer quotes a
        // date, fixed once sent; the date in the first user message is what
        // the application writes into every request.
        const auto body = [](const std::string& first_user) {
            return R"({"model":"claude-sonnet-4-5","system":[{"type":"text","text":")" +
                   words(300) + R"("}],"messages":[{"role":"user","content":")" + first_user +
                   R"("},{"role":"assistant","content":"It ended on January 1, 2020."},)"
                   R"({"role":"user","content":[{"type":"text","text":"And then?",)"
                   R"("cache_control":{"type":"ephemeral"}}]}]})";
        };
        CHECK(!find(lint_text(body("When did it end?")), "CW010"));
        const auto findings = lint_text(body("Today is 2026-12-07. When did it end?"));
        const auto* f = find(findings, "CW010");
        REQUIRE(f != nullptr);
        CHECK(f->location.path == "messages[0].content");
    }

    TEST_CASE("a model the rules do not list is said, with the listed name a typo stands for")
    {
        const auto warning = [](const std::string& model) {
            model::Request r;
            r.provider = model.rfind("gpt", 0) == 0 ? "openai" : "anthropic";
            r.model = model;
            return advise::unlisted_model_warning(test::rules(), r);
        };
        CHECK(warning("claude-opus-4-5").empty());
        CHECK(warning("gpt-4o").empty());
        CHECK(warning("claude-opus-45") ==
              "model \"claude-opus-45\" is not listed in rules/providers/anthropic.json (did you "
              "mean claude-opus-4-5?): its minimum is assumed, anthropic's default of 1,024 "
              "tokens (the strictest listed is 4,096, claude-haiku-4-5)");
        CHECK(warning("claude-sonet-4-5").find("(did you mean claude-sonnet-4-5?)") !=
              std::string::npos);
        // A listed family with any variant after it ("gemini-2-5-flash(-.*)?").
        model::Request gemini;
        gemini.provider = "gemini";
        gemini.model = "gemini-2.5-flsh";
        CHECK(advise::unlisted_model_warning(test::rules(), gemini)
                  .find("(did you mean gemini-2-5-flash?)") != std::string::npos);
        // Other digits are another model, not a typo; nor is another name.
        CHECK(warning("claude-3-5-sonnet-20241022").find("did you mean") == std::string::npos);
        CHECK(warning("nonexistent-model-x").find("did you mean") == std::string::npos);
        // lint says it beside the report.
        test::TempFile file(
            R"({"model":"claude-opus-45","messages":[{"role":"user","content":"hi"}]})",
            "request.json");
        const auto result = cli::lint_files({file.path()}, test::rules(), {});
        REQUIRE(result.warnings.size() == 1);
        CHECK(result.warnings.front().find("claude-opus-45") != std::string::npos);
    }

    TEST_CASE("disabled rules and custom placeholder syntax")
    {
        const std::string text =
            R"({"model":"claude-sonnet-4-5","system":[{"type":"text","text":"Hi <<name>>. )" +
            words(300) +
            R"(","cache_control":{"type":"ephemeral"}}],"messages":[{"role":"user","content":"hi"}]})";
        CHECK(!find(lint_text(text), "CW010"));
        advise::LintOptions custom;
        custom.placeholders = {R"(<<\w+>>)"};
        CHECK(find(lint_text(text, custom), "CW010"));
        custom.disabled = {"CW010"};
        CHECK(!find(lint_text(text, custom), "CW010"));
    }

    TEST_CASE("SARIF 2.1.0: required properties, rule indexes, 1-based lines")
    {
        const std::string text =
            "{\n\"model\": \"claude-haiku-4-5\",\n\"system\": [{\"type\": \"text\", \"text\": \"Hi "
            "{{name}}\", \"cache_control\": {\"type\": \"ephemeral\"}}],\n\"messages\": "
            "[{\"role\": \"user\", \"content\": \"hi\"}]\n}\n";
        const auto findings = lint_text(text);
        REQUIRE(!findings.empty());
        std::ostringstream out;
        report::print_sarif(findings, out);
        const auto sarif = nlohmann::json::parse(out.str());
        CHECK(sarif["version"] == "2.1.0");
        CHECK(sarif["$schema"].get<std::string>().find("sarif-2.1.0") != std::string::npos);
        REQUIRE(sarif["runs"].size() == 1);
        const auto& run = sarif["runs"][0];
        const auto& rules = run["tool"]["driver"]["rules"];
        CHECK(run["tool"]["driver"]["name"] == "cachewise");
        CHECK(rules.size() == analysis::rule_catalogue().size());
        for (const auto& rule : rules) {
            CHECK(rule.contains("id"));
            CHECK(rule.contains("name"));
            CHECK(rule["shortDescription"].contains("text"));
            CHECK(rule["help"].contains("text"));
            const std::string level = rule["defaultConfiguration"]["level"];
            CHECK((level == "error" || level == "warning" || level == "note"));
        }
        REQUIRE(run["results"].size() == findings.size());
        for (const auto& result : run["results"]) {
            const std::size_t index = result["ruleIndex"];
            REQUIRE(index < rules.size());
            CHECK(rules[index]["id"] == result["ruleId"]);
            CHECK(result["message"].contains("text"));
            const auto& physical = result["locations"][0]["physicalLocation"];
            CHECK(physical["artifactLocation"]["uri"].get<std::string>().find("request.json") !=
                  std::string::npos);
            CHECK(physical["region"]["startLine"].get<int>() >= 1);
            CHECK(physical["region"]["startColumn"].get<int>() >= 1);
        }
    }

    TEST_CASE("GitHub annotations escape what the workflow-command syntax needs")
    {
        analysis::Finding f = analysis::make_finding("CW012");
        f.file = "a,b.json";
        f.line = 3;
        f.column = 7;
        f.location.path = "system[0]";
        f.message = "50% below\nthe minimum";
        std::ostringstream out;
        report::print_github({f}, out);
        CHECK(out.str() == "::warning file=a%2Cb.json,line=3,col=7,title=CW012 "
                           "below-minimum::system[0]: 50%25 below%0Athe minimum\n"
                           "cachewise: 1 finding (0 errors, 1 warning, 0 notices)\n");
    }

    TEST_CASE("providers: Anthropic's breakpoint rules only where they apply")
    {
        // An OpenAI request before GPT-5.6 caches automatically: no CW011.
        const std::string gpt = R"({"model":"gpt-4o","messages":[{"role":"system","content":")" +
                                words(120) + R"("},{"role":"user","content":"hi"}]})";
        CHECK(find(lint_text(gpt), "CW011") == nullptr);

        // GPT-5.6 in explicit mode without a breakpoint caches nothing.
        const std::string explicit_mode =
            R"({"model":"gpt-5.6","prompt_cache_options":{"mode":"explicit"},"messages":[{"role":"system","content":")" +
            words(120) + R"("},{"role":"user","content":"hi"}]})";
        const auto findings = lint_text(explicit_mode);
        REQUIRE(find(findings, "CW011") != nullptr);

        // Five breakpoints are Anthropic's CW013, not OpenAI's.
        std::string parts;
        for (int i = 0; i < 5; ++i) {
            parts += fmt::format(
                R"({}{{"type":"text","text":"part {} {}","prompt_cache_breakpoint":{{"mode":"explicit"}}}})",
                i == 0 ? "" : ",", i, words(30));
        }
        const std::string five =
            R"({"model":"gpt-5.6","messages":[{"role":"user","content":[)" + parts + "]}]}";
        CHECK(find(lint_text(five), "CW013") == nullptr);
        const std::string deepseek =
            R"({"model":"deepseek-chat","messages":[{"role":"system","content":"Today is 2026-11-29. )" +
            words(120) + R"("},{"role":"user","content":"hi"}]})";
        // Dynamic fields matter to every provider.
        CHECK(find(lint_text(deepseek), "CW010") != nullptr);
    }

    TEST_CASE("CW012 on a cache without breakpoints: the whole prompt against the minimum")
    {
        // OpenAI before GPT-5.6, Gemini's implicit cache and DeepSeek cache
        // the whole prompt or nothing, as audit's simulators count them.
        for (const std::string model : {"gpt-4o", "gemini-2.5-pro", "deepseek-chat"}) {
            CAPTURE(model);
            const std::string short_prompt =
                R"({"model":")" + model +
                R"(","messages":[{"role":"system","content":"Answer briefly."},{"role":"user","content":"hi"}]})";
            const auto findings = lint_text(short_prompt);
            const auto* f = find(findings, "CW012");
            REQUIRE(f != nullptr);
            CHECK(f->message.find("the prompt is about") == 0);
            CHECK(f->message.find("for automatic caching") != std::string::npos);
        }
        const std::string long_prompt =
            R"({"model":"deepseek-chat","messages":[{"role":"system","content":")" + words(20) +
            R"("},{"role":"user","content":"hi"}]})";
        CHECK(find(lint_text(long_prompt), "CW012") == nullptr);
    }

    TEST_CASE("an OpenAI template counted by its tokenizer is checked on the count, without a band")
    {
        const std::string path =
            CACHEWISE_SOURCE_DIR "/tests/cli/data/gpt56-short-prefix-template.json";
        const auto estimated = cli::lint_files({path}, test::rules(), {});
        CHECK(estimated.files_exact == 0);
        const auto* borderline = find(estimated.findings, "CW012");
        REQUIRE(borderline != nullptr);
        CHECK(borderline->kind == "borderline");

        cli::Settings settings; // tokenize: on by default
        cli::TokenizerHook tokenizer(settings);
        const auto exact = cli::lint_files({path}, test::rules(), {}, &tokenizer);
        CHECK(exact.files_exact == 1);
        CHECK(exact.tokenizers == std::set<std::string>{"o200k_base"});
        const auto* below = find(exact.findings, "CW012");
        REQUIRE(below != nullptr);
        CHECK(below->kind == "exact");
        CHECK(below->message.find("counted with the model's tokenizer") != std::string::npos);
        CHECK(below->message.find("±") == std::string::npos);

        settings.tokenize.value = false;
        cli::TokenizerHook off(settings);
        CHECK(cli::lint_files({path}, test::rules(), {}, &off).files_exact == 0);
    }
}
