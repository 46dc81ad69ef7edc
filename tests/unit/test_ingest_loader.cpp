#include "helpers.hpp"
#include "ingest/loader.hpp"
#include "util/error.hpp"

#include <doctest/doctest.h>

using namespace cachewise;

namespace {

const std::string k_good =
    R"({"model":"claude-sonnet-4-5","messages":[{"role":"user","content":"hi"}]})";

// Loads good, bad, good and returns the one error; both good records must survive.
ingest::InputError
error_of(const std::string& bad_line)
{
    const auto loaded = test::load_text(k_good + "\n" + bad_line + "\n" + k_good + "\n");
    CHECK(loaded.requests.size() == 2);
    CHECK(loaded.summary.error_count == 1);
    CHECK(loaded.summary.records == 3);
    REQUIRE(loaded.summary.errors.size() == 1);
    CHECK(loaded.summary.errors[0].line == 2);
    CHECK(loaded.summary.errors[0].file.find("input.jsonl") != std::string::npos);
    return loaded.summary.errors[0];
}

} // namespace

TEST_SUITE("ingest::loader")
{
    TEST_CASE("a line that is not JSON")
    {
        const auto e = error_of("{this is not json");
        CHECK(e.reason.find("JSON") != std::string::npos);
    }

    TEST_CASE("text after the JSON value")
    {
        const auto e = error_of(k_good + " trailing");
        CHECK(e.reason.find("JSON") != std::string::npos);
    }

    TEST_CASE("a value of the wrong type names the field")
    {
        auto e = error_of(R"({"model":"m","messages":{"role":"user"}})");
        CHECK(e.field == "messages");
        CHECK(e.reason == "expected an array of messages, found an object");

        e = error_of(R"({"model":"m","messages":[{"role":"user","content":42}]})");
        CHECK(e.field == "messages[0].content");
        CHECK(e.reason == "expected a string or an array of content blocks, found a number");

        e = error_of(R"({"model":7,"messages":[]})");
        CHECK(e.field == "model");

        e = error_of(
            R"({"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"a"},{"text":"no type"}]}]})");
        CHECK(e.field == "messages[0].content[1].type");

        e = error_of(R"({"model":"m","messages":[{"role":"robot","content":"x"}]})");
        CHECK(e.field == "messages[0].role");

        e = error_of(
            R"({"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"a","cache_control":{"type":"ephemeral","ttl":"2h"}}]}]})");
        CHECK(e.field == "messages[0].content[0].cache_control.ttl");
        CHECK(e.reason == "expected \"5m\" or \"1h\", found \"2h\"");

        e = error_of(
            R"({"request":{"model":"m","messages":[]},"response":{"usage":{"input_tokens":"12"}}})");
        CHECK(e.field == "response.usage.input_tokens");

        e = error_of(R"({"request":{"model":"m","messages":[]},"started_at":"yesterday"})");
        CHECK(e.field == "started_at");
        CHECK(e.reason.find("invalid RFC 3339 time") != std::string::npos);
    }

    TEST_CASE("missing required fields")
    {
        auto e = error_of(R"({"messages":[{"role":"user","content":"x"}]})");
        CHECK(e.field == "model");
        CHECK(e.reason == "missing");
        e = error_of(R"({"request":{"model":"m"}})");
        CHECK(e.field == "messages");
        e = error_of(R"({"model":"m","messages":[{"content":"x"}]})");
        CHECK(e.field == "messages[0].role");
        e = error_of(R"({"id":"x","response":{}})");
        CHECK(e.field == "request");
    }

    TEST_CASE("invalid UTF-8")
    {
        const auto e = error_of("{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":"
                                "\"bad \xC3\x28 byte\"}]}");
        CHECK(e.reason.find("UTF-8") != std::string::npos);
    }

    TEST_CASE("absurd nesting is refused, not recursed into")
    {
        std::string deep =
            R"({"model":"m","messages":[{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"n","input":)";
        for (int i = 0; i < 5000; ++i) {
            deep += "[";
        }
        for (int i = 0; i < 5000; ++i) {
            deep += "]";
        }
        deep += "}]}]}";
        const auto e = error_of(deep);
        CHECK((e.reason.find("nested deeper") != std::string::npos ||
               e.reason.find("DEPTH") != std::string::npos ||
               e.reason.find("depth") != std::string::npos));
    }

    TEST_CASE("a record with both a request member and top-level request fields")
    {
        const auto e = error_of(R"({"request":{"model":"m","messages":[]},"model":"m"})");
        CHECK(e.reason.find("not both") != std::string::npos);
    }

    TEST_CASE("a top-level value that is not an object")
    {
        const auto e = error_of("42");
        CHECK(e.reason == "expected a JSON object, found a number");
    }

    TEST_CASE("blank lines are skipped, not errors; an empty file reads nothing")
    {
        auto loaded = test::load_text("\n\n   \n" + k_good + "\n\n");
        CHECK(loaded.requests.size() == 1);
        CHECK(loaded.summary.error_count == 0);
        loaded = test::load_text("");
        CHECK(loaded.requests.empty());
        CHECK(loaded.summary.error_count == 0);
    }

    TEST_CASE("a record read twice counts once; the same id at another time or prompt does not")
    {
        const std::string a =
            R"({"id":"r1","started_at":"2026-11-20T10:00:00Z","request":{"model":"claude-sonnet-4-5","messages":[{"role":"user","content":"hi"}]}})";
        std::string later = a;
        later.replace(later.find("10:00:00"), 8, "10:05:00");
        std::string other = a;
        other.replace(other.find(R"("hi")"), 4, R"("ho")");
        const auto loaded = test::load_text(a + "\n" + a + "\n" + later + "\n" + other + "\n");
        CHECK(loaded.requests.size() == 3);
        CHECK(loaded.summary.duplicates == 1);
        CHECK(loaded.summary.error_count == 0);
    }

    TEST_CASE("a JSON array of records")
    {
        const auto loaded = test::load_text("[" + k_good + "," + k_good + "]\n");
        CHECK(loaded.requests.size() == 2);
    }

    TEST_CASE("a JSON array cut short at any byte keeps every element before the cut")
    {
        // A file cut off mid-write, and a broken element: each costs itself only.
        const std::string second =
            R"({"model":"claude-sonnet-4-5","messages":[{"role":"user","content":"a ] } \" ["}]})";
        const std::string doc = "[\n" + k_good + ",\n" + second + ",\n" + k_good + "\n]\n";
        std::vector<std::size_t> ends; // where each element ends
        for (std::size_t at = doc.find(k_good) + k_good.size(); ends.size() < 3;) {
            ends.push_back(at);
            at = ends.size() == 1 ? doc.find(second) + second.size()
                                  : doc.rfind(k_good) + k_good.size();
        }
        for (std::size_t cut = 2; cut < doc.size(); ++cut) {
            CAPTURE(cut);
            const auto loaded =
                test::load_text(doc.substr(0, cut), ingest::InputFormat::auto_detect, "input.json");
            const auto whole = static_cast<std::size_t>(
                std::count_if(ends.begin(), ends.end(), [&](auto e) { return e <= cut; }));
            CHECK(loaded.requests.size() == whole);
            const bool closed = doc.substr(0, cut).find("\n]") != std::string::npos;
            CHECK(loaded.summary.error_count == (closed ? 0U : 1U));
        }
        const auto broken = test::load_text("[" + k_good + ",\n{\"model\":7},\n" + k_good + "",
                                            ingest::InputFormat::auto_detect, "input.json");
        CHECK(broken.requests.size() == 2);
        REQUIRE(broken.summary.errors.size() == 2);
        CHECK(broken.summary.errors[0].field == "[1].model");
        CHECK(broken.summary.errors[0].line == 2);
        CHECK(broken.summary.errors[1].reason ==
              "cut short: the document ends before the array's ']'");
        // One element a line, a stray line between two: one break, at its line.
        const auto stray =
            test::load_text("[\n" + k_good + ",\n" + std::string(1, '\0') + "\n" + k_good + "\n]\n",
                            ingest::InputFormat::auto_detect, "input.json");
        CHECK(stray.requests.size() == 1);
        REQUIRE(stray.summary.errors.size() == 1);
        CHECK(stray.summary.errors[0].line == 3);
        CHECK(stray.summary.errors[0].field == "[1]");
    }

    TEST_CASE("directories are walked recursively for log files in name order")
    {
        test::TempFile a(k_good + "\n", "b.jsonl");
        test::TempFile::write(a.dir() + "/sub/a.json", k_good);
        test::TempFile::write(a.dir() + "/notes.txt", "not a log");
        const auto files = ingest::expand_inputs({a.dir()});
        REQUIRE(files.size() == 2);
        CHECK(files[0].find("b.jsonl") != std::string::npos);
        CHECK(files[1].find("sub/a.json") != std::string::npos);
        const auto loaded = test::load_paths({a.dir()});
        CHECK(loaded.requests.size() == 2);
    }

    TEST_CASE(
        "a file reached twice (named, inside a folder named, by another spelling) is read once")
    {
        test::TempFile a(k_good + "\n", "b.jsonl");
        std::vector<std::string> notes;
        const auto files =
            ingest::expand_inputs({a.path(), a.dir(), a.dir() + "/./b.jsonl"}, &notes);
        REQUIRE(files.size() == 1);
        CHECK(files[0] == a.path());
        REQUIRE(notes.size() == 2);
        CHECK(notes[1] == "2 files given more than once (by name or inside a folder given): read "
                          "once");
        CHECK(test::load_paths({a.path(), a.path()}).requests.size() == 1);
    }

    TEST_CASE("a folder walk names the compressed and the empty logs it leaves aside")
    {
        test::TempFile a(k_good + "\n", "b.jsonl");
        test::TempFile::write(a.dir() + "/old.jsonl.gz", "\x1f\x8b");
        test::TempFile::write(a.dir() + "/empty.json", "");
        test::TempFile::write(a.dir() + "/notes.txt.gz", "\x1f\x8b");
        std::vector<std::string> notes;
        const auto files = ingest::expand_inputs({a.dir()}, &notes);
        REQUIRE(files.size() == 1);
        REQUIRE(notes.size() == 1);
        CHECK(notes[0].find(", 1 other left aside; 1 compressed log left aside (decompress "
                            "first): ") != std::string::npos);
        CHECK(notes[0].find("old.jsonl.gz; 1 empty file left aside: ") != std::string::npos);
        CHECK(notes[0].find("empty.json") != std::string::npos);
    }

    TEST_CASE("a path that does not exist is a usage error")
    {
        CHECK_THROWS_WITH_AS(ingest::expand_inputs({"/nonexistent/x.jsonl"}),
                             "/nonexistent/x.jsonl: no such file or directory", Error);
    }

    TEST_CASE("a forced input format overrides detection")
    {
        // A one-line request read as SSE has no usage: an error of the whole file.
        const auto loaded = test::load_text(k_good + "\n", ingest::InputFormat::sse);
        CHECK(loaded.requests.empty());
        CHECK(loaded.summary.error_count == 1);
        CHECK(ingest::parse_input_format("claude-code") == ingest::InputFormat::claude_code);
        CHECK(!ingest::parse_input_format("yaml"));
    }
}
