#include "helpers.hpp"
#include "ingest/file_kind.hpp"

#include <doctest/doctest.h>

using namespace cachewise;

TEST_SUITE("ingest::file_kind")
{
    TEST_CASE("text that is not JSON is named by what it looks like")
    {
        CHECK(ingest::describe_non_json("owner: team\n") == "looks like YAML");
        CHECK(ingest::describe_non_json("interactions:\n- request:") ==
              "looks like a VCR cassette (YAML)");
        CHECK(ingest::describe_non_json("<html>") == "looks like HTML or XML");
        CHECK(ingest::describe_non_json("# Notes") == "looks like Markdown");
        CHECK(ingest::describe_non_json("hello there") == "looks like plain text");
        CHECK(ingest::describe_non_json("\n  \n") == "the file is empty");
        CHECK(ingest::describe_non_json(std::string("\x1f\x8b\x08\0", 4)) ==
              "looks like gzip data (decompress it first)");
        CHECK(ingest::describe_non_json(std::string("ELF\0\x01", 5)) == "looks like binary data");
        // Random bytes: control characters or invalid UTF-8, not "plain text".
        CHECK(ingest::describe_non_json("\xc3\x28 ab\x93") == "looks like binary data");
        CHECK(ingest::describe_non_json("ab\x07"
                                        "cd") == "looks like binary data");
        CHECK(ingest::describe_non_json("caf\xc3\xa9 au lait") == "looks like plain text");
        // A PNG opens with a byte that could be the tail of a cut character,
        // then ASCII: named by its signature, not taken for text.
        CHECK(ingest::describe_non_json("\x89PNG\r\n\x1a\n") == "looks like a PNG image");
        CHECK(ingest::looks_binary("\x89PNG\r\n"));
        CHECK(ingest::describe_non_json("%PDF-1.7\n") == "looks like a PDF document");
        CHECK(ingest::describe_non_json("PK\x03\x04") ==
              "looks like a zip archive (extract it first)");
        CHECK(ingest::describe_non_json("\x28\xb5\x2f\xfd") ==
              "looks like zstd data (decompress it first)");
    }

    TEST_CASE("valid JSON that is not a record says so, not 'not JSON'")
    {
        CHECK(ingest::non_json_reason("null\n") ==
              "a JSON null, not a record (an object, or an array of them)");
        CHECK(ingest::non_json_reason("42") ==
              "a JSON number, not a record (an object, or an array of them)");
        CHECK(ingest::non_json_reason("owner: team") == "not JSON: looks like YAML");
        CHECK(ingest::describe_non_template("\"hi\"", "t.json") ==
              "a JSON string, not a record (an object, or an array of them)");
    }

    TEST_CASE("files that are not templates say which command reads them")
    {
        CHECK(ingest::describe_non_template(
                  "{\"request\": {}, \"response\": {}}\n{\"request\": {}}\n", "log.jsonl") ==
              "an exchange log (one record a line): use analyze or audit");
        CHECK(
            ingest::describe_non_template(R"({"parentUuid": null, "sessionId": "s"})", "t.jsonl") ==
            "a Claude Code transcript: use analyze or audit");
        CHECK(ingest::describe_non_template("{}", "run.traj.json") ==
              "an agent trajectory: use analyze or audit");
        CHECK(ingest::describe_non_template("key: value\n", "notes.yaml") ==
              "not JSON (looks like YAML)");
    }

    TEST_CASE("a per-call log (OpenHands, LiteLLM) is a log, not a template")
    {
        const std::string call =
            R"({"messages":[{"role":"user","content":"hi"}],"kwargs":{"model":"m"},"response":{"choices":[]},"cost":0.1,"timestamp":1757015025.9})";
        CHECK(ingest::describe_non_template(call, "call.json") ==
              "a per-call log (a request with its response): use analyze or audit");
        // LiteLLM's logging payload, a body saved with its response, a call
        // logged before its response came.
        for (const std::string other :
             {R"({"messages":[],"response":{},"response_cost":0.1,"startTime":"x"})",
              R"({"model":"m","messages":[],"response":{"choices":[]}})",
              R"({"messages":[],"kwargs":{"model":"m"},"cost":0,"timestamp":1})"}) {
            CHECK(ingest::describe_non_template(other, "call.json") ==
                  "a per-call log (a request with its response): use analyze or audit");
        }
    }

    TEST_CASE("a request body or template is not described")
    {
        CHECK(ingest::describe_non_template(R"({"model": "m", "messages": []})", "t.json").empty());
        CHECK(ingest::describe_non_template(
                  "{\n  \"model\": \"{{model}}\",\n  \"messages\": []\n}\n", "t.json")
                  .empty());
    }

    TEST_CASE("a text file is one error for the file, not one per line")
    {
        const auto loaded = test::load_text("# Notes\n\nline two\nline three\n",
                                            ingest::InputFormat::auto_detect, "notes.txt");
        REQUIRE(loaded.summary.errors.size() == 1);
        CHECK(loaded.summary.errors[0].line == 0);
        CHECK(loaded.summary.errors[0].reason == "not JSON: looks like Markdown");
    }

    TEST_CASE("a log whose first line was cut keeps its records")
    {
        const std::string record =
            R"({"request": {"model": "claude-sonnet-4-5", "max_tokens": 8, "messages": )"
            R"([{"role": "user", "content": "Hi"}]}})";
        const auto loaded = test::load_text("ed_tokens\": 12}}}\n" + record + "\n" + record + "\n");
        CHECK(loaded.requests.size() == 2);
        REQUIRE(loaded.summary.errors.size() == 1);
        CHECK(loaded.summary.errors[0].line == 1);
    }

    TEST_CASE("binary data is one error for the file, whatever bytes open its later lines")
    {
        // Random bytes where a later "line" happens to open with '{' or '[':
        // not a log whose first line was cut.
        std::string bytes = "\x8a\xf1q\xbb^\x01\xe0\x83 U\x82\n";
        bytes += "{\x01\xff\n[\x02\n\x7f\x80{\n";
        const auto loaded = test::load_text(bytes, ingest::InputFormat::auto_detect, "g.bin");
        REQUIRE(loaded.summary.errors.size() == 1);
        CHECK(loaded.summary.errors[0].line == 0);
        CHECK(loaded.summary.errors[0].reason == "not JSON: looks like binary data");
        CHECK(ingest::looks_binary("\x1f\x8b\x08"));
        CHECK(ingest::looks_binary("abc\x01"
                                   "def"));
        CHECK(ingest::looks_binary("ab\xff\xfe"));
        // The tail of a character that rotation cut is text, as is a tab.
        CHECK_FALSE(ingest::looks_binary("\x80\xa9 caf\xc3\xa9\t\"}}\n{"));
        CHECK_FALSE(ingest::looks_binary("# Notes"));
    }
}
