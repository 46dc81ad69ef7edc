// The regressions of issue 18: logs written by a broken logger or an
// attacker lose nothing but their broken records, and nothing hangs.
#include "helpers.hpp"
#include "ingest/loader.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <sys/stat.h>
#include <unistd.h>

using namespace cachewise;

namespace {

std::string
hostile(const std::string& name)
{
    return std::string(CACHEWISE_SOURCE_DIR) + "/tests/cli/data/hostile/" + name;
}

const std::string k_good =
    R"({"model":"claude-sonnet-4-5","messages":[{"role":"user","content":"hi"}]})";

std::string
with_usage(const std::string& usage)
{
    return R"({"request":{"model":"claude-sonnet-4-5","messages":[{"role":"user","content":"hi"}]},)"
           R"("response":{"usage":)" +
           usage + "}}";
}

} // namespace

TEST_SUITE("ingest: hostile counts")
{
    TEST_CASE("DeepSeek counts of 1e12, 2^63-1, -5 and 1.5 are broken records; the rest load")
    {
        const auto loaded = test::load_paths({hostile("deepseek-huge-counts.jsonl")});
        CHECK(loaded.requests.size() == 2);
        CHECK(loaded.summary.error_count == 4);
        REQUIRE(loaded.summary.errors.size() == 4);
        CHECK(loaded.summary.errors[0].line == 2);
        CHECK(loaded.summary.errors[0].field == "response.usage.prompt_tokens");
        CHECK(loaded.summary.errors[0].reason.find("1000000000000 is out of range") !=
              std::string::npos);
        CHECK(loaded.summary.errors[1].reason.find("out of range") != std::string::npos);
        CHECK(loaded.summary.errors[2].reason.find("-5") != std::string::npos);
        CHECK(loaded.summary.errors[3].reason.find("1.5") != std::string::npos);
    }

    TEST_CASE("int64-sized exclusive counts are refused before they are added")
    {
        const auto loaded = test::load_paths({hostile("overflow-usage.jsonl")});
        CHECK(loaded.requests.size() == 2);
        REQUIRE(loaded.summary.errors.size() == 1);
        CHECK(loaded.summary.errors[0].line == 2);
        CHECK(loaded.summary.errors[0].field == "response.usage.input_tokens");
    }

    TEST_CASE("the largest accepted count loads; one more is broken")
    {
        CHECK(test::load_text(with_usage(R"({"input_tokens":100000000,"output_tokens":1})") + "\n")
                  .requests.size() == 1);
        const auto over =
            test::load_text(with_usage(R"({"input_tokens":100000001,"output_tokens":1})") + "\n");
        CHECK(over.requests.empty());
        CHECK(over.summary.error_count == 1);
    }

    TEST_CASE("an OTel count beyond int64 as a double is a broken span, not undefined behaviour")
    {
        const std::string span =
            R"({"traceId":"t","spanId":"s1","attributes":[)"
            R"({"key":"gen_ai.request.model","value":{"stringValue":"gpt-4o"}},)"
            R"({"key":"gen_ai.usage.input_tokens","value":1e300}]})";
        const auto loaded = test::load_text(span + "\n");
        CHECK(loaded.requests.empty());
        REQUIRE(loaded.summary.errors.size() == 1);
        CHECK(loaded.summary.errors[0].field == "attributes.gen_ai.usage.input_tokens");
    }

    TEST_CASE("GenAI attributes whose JSON has other types than the conventions give are broken "
              "spans; the others load")
    {
        // Found by fuzz_loader_request (2026-12-03): a number where the
        // conventions give text escaped as a JSON library exception and
        // ended the whole load.
        const auto span = [](const std::string& id, const std::string& attributes) {
            return R"({"traceId":"t","spanId":")" + id + R"(","attributes":[)" +
                   R"({"key":"gen_ai.request.model","value":{"stringValue":"gpt-4o"}},)" +
                   attributes + "]}\n";
        };
        const std::string hi = R"({"key":"gen_ai.input.messages","value":{"stringValue":)"
                               R"("[{\"role\":\"user\",\"content\":\"hi\"}]"}})";
        const auto loaded = test::load_text(
            span("s1", R"({"key":"gen_ai.system_instructions","value":0e300})") +
            span("s2", R"({"key":"gen_ai.input.messages","value":{"stringValue":"[1]"}})") +
            span("s3",
                 R"({"key":"gen_ai.input.messages","value":{"stringValue":"[{\"role\":5}]"}})") +
            span("s4",
                 hi + R"(,{"key":"gen_ai.tool.definitions","value":{"stringValue":"[\"f\"]"}})") +
            span("s6", R"({"key":"gen_ai.system_instructions","value":4e340})") + span("s5", hi));
        REQUIRE(loaded.requests.size() == 1);
        CHECK(loaded.requests[0].id == "s5");
        REQUIRE(loaded.summary.errors.size() == 5);
        // A number beyond a double in the attribute's JSON (found the same way).
        CHECK(loaded.summary.errors[4].field == "gen_ai.system_instructions");
        CHECK(loaded.summary.errors[0].field == "gen_ai.system_instructions");
        CHECK(loaded.summary.errors[1].field == "gen_ai.input.messages");
        CHECK(loaded.summary.errors[2].field == "gen_ai.input.messages");
        CHECK(loaded.summary.errors[3].field == "gen_ai.tool.definitions");
        CHECK(loaded.summary.errors[0].reason.find("not the shape") != std::string::npos);
    }
}

TEST_SUITE("ingest: hostile layout")
{
    TEST_CASE(
        "a byte-order mark and CRLF endings lose no record; a last line without newline is one")
    {
        const auto loaded = test::load_paths({hostile("bom-crlf.jsonl")});
        CHECK(loaded.requests.size() == 3);
        CHECK(loaded.summary.error_count == 0);
    }

    TEST_CASE("CR-only line endings")
    {
        const auto loaded = test::load_paths({hostile("cr-only.jsonl")});
        CHECK(loaded.requests.size() == 3);
        CHECK(loaded.summary.error_count == 0);
    }

    TEST_CASE("a broken first line does not make the file one document: 10 of 11 load")
    {
        const auto loaded = test::load_paths({hostile("broken-first-line.jsonl")});
        CHECK(loaded.requests.size() == 10);
        REQUIRE(loaded.summary.errors.size() == 1);
        CHECK(loaded.summary.errors[0].line == 1);
    }

    TEST_CASE("a document written over many lines is still one document")
    {
        const auto loaded =
            test::load_text("{\n  \"model\": \"claude-sonnet-4-5\",\n  \"messages\": "
                            "[\n    {\"role\": \"user\", \"content\": \"hi\"}\n  ]\n}\n",
                            ingest::InputFormat::auto_detect, "request.json");
        CHECK(loaded.requests.size() == 1);
        CHECK(loaded.summary.error_count == 0);
    }

    TEST_CASE("a broken element of an array of records costs that element: 6 of 7 load")
    {
        const auto loaded = test::load_paths({hostile("array-bad-element.json")});
        CHECK(loaded.requests.size() == 6);
        REQUIRE(loaded.summary.errors.size() == 1);
        CHECK(loaded.summary.errors[0].field.rfind("[3]", 0) == 0);
    }

    TEST_CASE("a bad message in a trajectory costs that message only")
    {
        const std::string call =
            R"({"role":"assistant","content":"ls","extra":{"response":{"usage":{"prompt_tokens":1510,"completion_tokens":12}}}})";
        const auto loaded = test::load_text(
            R"({"trajectory_format":"mini-swe-agent-1","info":{"config":{"model":{"model_name":"gpt-4o"}}},)"
            R"("messages":[{"role":"system","content":"You are an agent."},)" +
                call + R"(,{"role":"user","content":17},)" + call +
                R"(,{"role":"user","content":"ok"},)" + call + "]}\n",
            ingest::InputFormat::auto_detect, "run.traj.json");
        CHECK(loaded.requests.size() == 3);
        REQUIRE(loaded.summary.errors.size() == 1);
        CHECK(loaded.summary.errors[0].field.rfind("messages[2]", 0) == 0);
    }

    TEST_CASE("a folder that cannot be read is reported, the others are read")
    {
        if (::geteuid() == 0) {
            MESSAGE("skipped: root reads every folder");
            return;
        }
        test::TempFile a(k_good + "\n", "a/log.jsonl");
        test::TempFile::write(a.dir() + "/locked/log.jsonl", k_good + "\n");
        ::chmod((a.dir() + "/locked").c_str(), 0);
        const auto loaded = test::load_paths({a.dir()});
        ::chmod((a.dir() + "/locked").c_str(), 0700);
        CHECK(loaded.requests.size() == 1);
        REQUIRE(loaded.summary.errors.size() == 1);
        CHECK(loaded.summary.errors[0].reason.find("cannot list directory") != std::string::npos);
    }
}

TEST_SUITE("ingest: text from logs in messages")
{
    TEST_CASE("a key in a field of the wrong type is masked; an escape sequence is escaped")
    {
        const auto loaded = test::load_paths({hostile("wrong-type-secret.jsonl")});
        CHECK(loaded.requests.size() == 2);
        REQUIRE(loaded.summary.errors.size() == 2);
        for (const auto& e : loaded.summary.errors) {
            CHECK(e.str().find("FAKEtestKEY") == std::string::npos);
            CHECK(e.str().find('\x1b') == std::string::npos);
            CHECK(e.str().find('\n') == std::string::npos);
        }
    }
}
