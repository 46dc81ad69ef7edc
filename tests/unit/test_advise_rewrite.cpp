#include "advise/lint.hpp"
#include "advise/rewrite.hpp"
#include "advise/suggest.hpp"
#include "cli/lint_inputs.hpp"
#include "helpers.hpp"
#include "util/source_map.hpp"

#include <doctest/doctest.h>

using namespace cachewise;

namespace {

// Removes every occurrence of `what` from `text`.
std::string
without(std::string text, const std::string& what)
{
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what)) {
        text.erase(at, what.size());
    }
    return text;
}

const std::string k_template = R"({
  "model": "claude-sonnet-4-5",
  "max_tokens": 1024,
  "temperature": 0.50,
  "system": [
    {"type": "text", "text": "STABLE"},
    {"text": "Reply in English, caf\u00e9 style.", "type": "text"}
  ],
  "messages": [
    {"role": "user", "content": "Question for {{user}} on {{date}}"}
  ]
}
)";

// The requests of a template file, read as suggest reads it.
std::vector<model::Request>
load_template(const std::string& path, model::TextStore& texts)
{
    ingest::LoadOptions options;
    options.format = ingest::InputFormat::request;
    options.text_store = &texts;
    ingest::Loader loader(test::rules(), options);
    std::vector<model::Request> requests;
    loader.load({path}, [&](model::Request&& r) { requests.push_back(std::move(r)); });
    return requests;
}

// `n` sentences of stable instructions.
std::string
stable_text(int n)
{
    std::string out;
    for (int i = 0; i < n; ++i) {
        out += "Always cite the manual section and keep answers short. ";
    }
    return out;
}

// What suggest makes of one template's text, with the request it read.
struct Suggested {
    model::Request request;
    advise::Suggestion suggestion;
};

Suggested
suggest_text(const std::string& text, model::TextStore& texts)
{
    test::TempFile file(text, "template.json");
    auto requests = load_template(file.path(), texts);
    REQUIRE(requests.size() == 1);
    auto s = advise::suggest_for_request(requests[0], texts, test::rules(),
                                         advise::LintOptions{}.placeholders);
    return {std::move(requests[0]), std::move(s)};
}

} // namespace

TEST_SUITE("advise::rewrite")
{
    TEST_CASE("source map: paths, string offsets, lines and columns")
    {
        const auto map = SourceMap::build(k_template);
        REQUIRE(map);
        REQUIRE(map->find("system[1].text"));
        REQUIRE(map->find("messages[0].content"));
        const auto offset = map->string_offset("system[1].text", 18); // after "Reply in English, "
        REQUIRE(offset);
        CHECK(std::string_view(k_template).substr(*offset, 6) == "caf\\u0");
        const auto lc = map->line_column(*offset);
        CHECK(lc.line == 7);
        CHECK(!SourceMap::build("{\"a\": 1} trailing"));

        // An escaped character beyond the BMP (a surrogate pair, as Python's
        // json.dumps writes an emoji) is one character, not two.
        const std::string escaped = R"({"text": "\ud83c\udf89\ud83c\udf89 Now: 2026"})";
        const auto emoji = SourceMap::build(escaped);
        REQUIRE(emoji);
        const auto at = emoji->string_offset("text", 8); // after two emoji and " Now: "
        REQUIRE(at);
        CHECK(escaped.substr(*at, 4) == "2026");
    }

    TEST_CASE("markers are added and nothing else changes, byte for byte")
    {
        std::string text = k_template;
        const std::string stable(6000, 'x');
        text.replace(text.find("STABLE"), 6, "You are a support agent. " + stable);
        test::TempFile file(text, "template.json");
        const auto loaded = test::load_paths({file.path()}, ingest::InputFormat::request);
        REQUIRE(loaded.requests.size() == 1);
        const auto& r = loaded.requests[0];
        std::vector<model::Breakpoint> wanted = {{1, {model::Ttl::one_hour}, false},
                                                 {2, {model::Ttl::five_minutes}, false}};
        const auto out = advise::rewrite_request(text, "", r, wanted);
        REQUIRE(out);
        CHECK(*out != text);
        // system[1] gained a marker before its closing brace; the string content
        // became the block it stands for, its bytes kept.
        CHECK(out->find(R"("type": "text","cache_control":{"type":"ephemeral","ttl":"1h"}})") !=
              std::string::npos);
        CHECK(
            out->find(
                R"("content": [{"type":"text","text":"Question for {{user}} on {{date}}","cache_control":{"type":"ephemeral"}}])") !=
            std::string::npos);
        std::string back = without(*out, R"(,"cache_control":{"type":"ephemeral","ttl":"1h"})");
        back = without(back, R"(,"cache_control":{"type":"ephemeral"})");
        back.replace(back.find(R"([{"type":"text","text":)"), 23, "");
        back.replace(back.find(R"("}])"), 3, "\"");
        CHECK(back == text);
    }

    TEST_CASE("a marker no longer wanted is cut out with its comma")
    {
        const std::string text =
            R"({"model":"claude-sonnet-4-5","messages":[{"role":"user","content":[{"cache_control":{"type":"ephemeral"},"type":"text","text":"hi"},{"type":"text","text":"there","cache_control":{"type":"ephemeral"}}]}]})";
        const auto r = test::request_of(text);
        const auto out = advise::rewrite_request(text, "", r, {});
        REQUIRE(out);
        CHECK(
            *out ==
            R"({"model":"claude-sonnet-4-5","messages":[{"role":"user","content":[{"type":"text","text":"hi"},{"type":"text","text":"there"}]}]})");
    }

    TEST_CASE("suggest on a template, written, passes lint with no warning and only adds markers")
    {
        std::string text = k_template;
        text.replace(text.find("STABLE"), 6, stable_text(400));
        test::TempFile file(text, "template.json");
        model::TextStore texts;
        const auto [request, s] = suggest_text(text, texts);
        const auto& marks = s.breakpoints.at(request.id);
        REQUIRE(marks.size() == 1);
        CHECK(request.segments[marks[0].segment].path.str() == "system[1]");
        const auto out = advise::rewrite_request(text, "", s.requests[0], marks);
        REQUIRE(out);
        CHECK(without(*out, R"(,"cache_control":{"type":"ephemeral"})") == text);

        test::TempFile written(*out, "written.json");
        const auto result = cli::lint_files({written.path()}, test::rules(), {});
        for (const auto& f : result.findings) {
            CHECK_MESSAGE(f.severity == analysis::Severity::info, f.rule, ": ", f.message);
        }
        // The original, without a breakpoint, is flagged for it.
        const auto before = cli::lint_files({file.path()}, test::rules(), {});
        CHECK(std::any_of(before.findings.begin(), before.findings.end(),
                          [](const auto& f) { return f.rule == "CW011"; }));
    }

    TEST_CASE("suggest advises moving a date of an automatic cache only where lint reports it")
    {
        const std::string stable = stable_text(200);
        const auto body = [](const std::string& system) {
            return R"({"model":"gpt-4o","messages":[{"role":"system","content":")" + system +
                   R"("},{"role":"user","content":"How do I reset my password?"}]})";
        };
        const std::string date = "Today is 2026-12-07. ";
        for (const bool at_start : {true, false}) {
            CAPTURE(at_start);
            const std::string text = body(at_start ? date + stable : stable + date);
            test::TempFile file(text, "template.json");
            model::TextStore texts;
            const auto s = suggest_text(text, texts).suggestion;
            const auto lint = cli::lint_files({file.path()}, test::rules(), {});
            const bool reported = std::any_of(lint.findings.begin(), lint.findings.end(),
                                              [](const auto& f) { return f.rule == "CW010"; });
            // At the end of the system prompt only the question follows it:
            // shorter than OpenAI's minimum, nothing to cache by moving it.
            CHECK(reported == at_start);
            CHECK(s.advice.empty() == !at_start);
        }
    }

    TEST_CASE("where suggest places nothing, the request's own breakpoint stays")
    {
        // A time of day in static text reads as a value that changes with
        // every request (a template cannot tell); dropping the working
        // breakpoint after it would bill every read (0.1x) as fresh input.
        const std::string text =
            std::string(
                R"({"model":"claude-sonnet-4-5","max_tokens":64,"system":[{"type":"text","text":")") +
            "The office opens at 9:30 AM. " + stable_text(300) +
            R"(","cache_control":{"type":"ephemeral"}}],"messages":[{"role":"user","content":"hi"}]})";
        model::TextStore texts;
        const auto [request, s] = suggest_text(text, texts);
        const auto& marks = s.breakpoints.at(request.id);
        REQUIRE(marks.size() == 1);
        CHECK(request.segments[marks[0].segment].path.str() == "system[0]");
        CHECK(s.families.at(0).keeps_current);
        CHECK(advise::rewrite_request(text, "", s.requests[0], marks) == text);
    }

    TEST_CASE("unified diff")
    {
        const std::string diff = advise::unified_diff("a\nb\nc\n", "a\nB\nc\n", "x", "y");
        CHECK(diff == "--- x\n+++ y\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n");
        CHECK(advise::unified_diff("same\n", "same\n", "x", "y").empty());
    }

    TEST_CASE("a change in a long line is shown around the change, with its JSON path")
    {
        const std::string text(30000, 'a');
        const std::string before = R"({"system": [{"type": "text", "text": ")" + text + R"("}]})";
        const std::string after = R"({"system": [{"type": "text", "text": ")" + text +
                                  R"(", "cache_control": {"type": "ephemeral"}}]})";
        const std::string diff = advise::unified_diff(before + "\n", after + "\n", "x", "y");
        CHECK(diff.find("@@ -1,1 +1,1 @@ system[0]") != std::string::npos);
        CHECK(diff.find("\"cache_control\": {\"type\": \"ephemeral\"}") != std::string::npos);
        CHECK(diff.find("…[") != std::string::npos);
        CHECK(diff.size() < 600);
    }

    TEST_CASE("every change in a long line is shown and named, the bytes between them counted")
    {
        const std::string a(5000, 'a');
        const std::string b(5000, 'b');
        const std::string before = R"({"system": [{"type": "text", "text": ")" + a +
                                   R"("}, {"type": "text", "text": ")" + b + R"("}]})";
        const std::string marker = R"(, "cache_control": {"type": "ephemeral"})";
        const std::string after = R"({"system": [{"type": "text", "text": ")" + a + "\"" + marker +
                                  R"(}, {"type": "text", "text": ")" + b + "\"" + marker + "}]}";
        const std::string diff = advise::unified_diff(before + "\n", after + "\n", "x", "y");
        CHECK(diff.find("@@ -1,1 +1,1 @@ system[0], system[1]\n") != std::string::npos);
        // Both markers on the + line, none of the 10,000 bytes around them whole.
        const auto plus = diff.substr(diff.find("\n+…") + 1);
        const auto first = plus.find("cache_control");
        REQUIRE(first != std::string::npos);
        CHECK(plus.find("cache_control", first + 1) != std::string::npos);
        // Two gaps: before the first change and between the two (the line ends
        // within the second one's context).
        std::size_t gaps = 0;
        for (auto at = plus.find("…["); at < plus.find('\n'); at = plus.find("…[", at + 1)) {
            ++gaps;
        }
        CHECK(gaps == 2);
        CHECK(diff.size() < 1000);
    }

    TEST_CASE("a key that the cut of a long line goes through is masked whole, not shown")
    {
        // The 40 bytes kept before the marker hold only the key's tail: cut
        // first, the key lost the prefix its redaction knows it by.
        const std::string key = "sk-ant-api03-" + std::string(90, 'Q') + "zz";
        const std::string text = std::string(3000, 'a') + " key=" + key;
        const std::string before = R"({"system": [{"type": "text", "text": ")" + text + R"("}]})";
        const std::string after = R"({"system": [{"type": "text", "text": ")" + text +
                                  R"(", "cache_control": {"type": "ephemeral"}}]})";
        const std::string diff = advise::unified_diff(before + "\n", after + "\n", "x", "y");
        CHECK(diff.find("QQQQ") == std::string::npos);
        CHECK(diff.find("sk-ant-…zz") != std::string::npos);
        CHECK(diff.find("cache_control") != std::string::npos);
    }

    TEST_CASE("a key that several changes' windows cut is masked once on each line")
    {
        // A string made an array: one change before the key, one after it,
        // each window holding a part of it.
        const std::string key = "sk-ant-api03-" + std::string(90, 'Q') + "zz";
        const std::string head = R"({"s": ")" + std::string(3000, 'a') + R"(", "m": )";
        const std::string before = head + R"("hi )" + key + R"("})";
        const std::string after = head + R"(["hi )" + key + R"(", 1]})";
        const std::string diff = advise::unified_diff(before + "\n", after + "\n", "x", "y");
        CHECK(diff.find("QQQQ") == std::string::npos);
        const auto plus = diff.substr(diff.find("\n+…") + 1);
        const auto line = plus.substr(0, plus.find('\n'));
        std::size_t masks = 0;
        for (auto at = line.find("sk-ant-"); at != std::string::npos;
             at = line.find("sk-ant-", at + 1)) {
            ++masks;
        }
        CHECK(masks == 1);
    }

    TEST_CASE("a long line rewritten beyond the edit limit still shows where it starts to differ")
    {
        std::string before(4000, 'x');
        std::string after = before;
        for (std::size_t i = 100; i < after.size(); i += 2) {
            after[i] = 'y'; // 1,950 scattered edits: past the byte diff's limit
        }
        const std::string diff = advise::unified_diff(before + "\n", after + "\n", "x", "y");
        CHECK(diff.find("-…[60 bytes]…") != std::string::npos);
        CHECK(diff.size() < 1000);
    }
}
