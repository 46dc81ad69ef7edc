#include "helpers.hpp"
#include "ingest/vcr_cassette.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <fstream>
#include <sstream>

using namespace cachewise;

namespace {

const std::string k_cassette =
    std::string(CACHEWISE_SOURCE_DIR) + "/tests/cli/data/inputs/vcr/support-chat.yaml";

} // namespace

TEST_SUITE("ingest::CassetteReader")
{
    TEST_CASE("model calls become requests with their usage and recorded date")
    {
        const auto loaded = test::load_paths({k_cassette});
        REQUIRE(loaded.summary.errors.empty());
        REQUIRE(loaded.requests.size() == 2);
        CHECK(loaded.summary.skipped == 1); // count_tokens is not a model call
        const auto& first = loaded.requests[0];
        CHECK(first.model == "claude-sonnet-4-5");
        REQUIRE(first.usage);
        CHECK(first.usage->cache_write == 1843);
        REQUIRE(first.started_at);
        CHECK(format_rfc3339(*first.started_at).rfind("2026-11-20T14:03:15", 0) == 0);
        // The second response was recorded gzip'd and base64'd.
        const auto& second = loaded.requests[1];
        REQUIRE(second.usage);
        CHECK(second.usage->cache_read == 1843);
    }

    TEST_CASE("a Bedrock invoke names its model in the URL only")
    {
        const std::string yaml = R"(interactions:
- request:
    body: '{"anthropic_version": "bedrock-2023-05-31", "max_tokens": 64, "messages": [{"role": "user", "content": "Hello"}]}'
    method: POST
    uri: https://bedrock-runtime.eu-central-1.amazonaws.com/model/eu.anthropic.claude-haiku-4-5-20251001-v1%3A0/invoke
  response:
    body:
      string: '{"id": "msg_1", "type": "message", "role": "assistant", "content": [{"type": "text", "text": "Hi"}], "usage": {"input_tokens": 8, "output_tokens": 2}}'
    status:
      code: 200
version: 1
)";
        const auto loaded = test::load_text(yaml, ingest::InputFormat::auto_detect, "call.yaml");
        REQUIRE(loaded.summary.errors.empty());
        REQUIRE(loaded.requests.size() == 1);
        CHECK(loaded.requests[0].model == "eu.anthropic.claude-haiku-4-5-20251001-v1:0");
        CHECK(loaded.requests[0].provider == "bedrock");
    }

    TEST_CASE("a YAML file that is not a cassette is one error for the file")
    {
        const auto loaded = test::load_text("owner: prompts\nreview: weekly\n",
                                            ingest::InputFormat::auto_detect, "notes.yaml");
        REQUIRE(loaded.summary.errors.size() == 1);
        CHECK(loaded.summary.errors[0].line == 0);
        CHECK(loaded.summary.errors[0].reason == "not a VCR cassette: no `interactions` list");
    }

    TEST_CASE("a YAML error inside one interaction costs that interaction only")
    {
        std::ifstream in(k_cassette);
        std::stringstream buffer;
        buffer << in.rdbuf();
        const std::string whole = buffer.str();
        // The third interaction (line 40) gets an unclosed flow sequence; the
        // first (line 2), a gzip'd one in the good copy, still loads.
        std::string broken = whole;
        const auto at = broken.rfind("    method: POST");
        REQUIRE(at != std::string::npos);
        broken.replace(at, 16, "    method: [POST");
        auto loaded = test::load_text(broken, ingest::InputFormat::auto_detect, "chat.yaml");
        REQUIRE(loaded.summary.errors.size() == 1);
        CHECK(loaded.summary.errors[0].line >= 40);
        CHECK(loaded.summary.errors[0].reason.find("not valid YAML") != std::string::npos);
        REQUIRE(loaded.requests.size() == 1);
        CHECK(loaded.requests[0].usage->cache_write == 1843);
        CHECK(loaded.summary.skipped == 1);

        // The first broken instead: the third still loads, at its own line.
        broken = whole;
        broken.replace(broken.find("    method: POST"), 16, "    method: [POST");
        loaded = test::load_text(broken, ingest::InputFormat::auto_detect, "chat.yaml");
        REQUIRE(loaded.summary.errors.size() == 1);
        CHECK(loaded.summary.errors[0].line >= 2);
        CHECK(loaded.summary.errors[0].line < 30);
        REQUIRE(loaded.requests.size() == 1);
        CHECK(loaded.requests[0].line == 40);
        CHECK(loaded.requests[0].usage->cache_read == 1843);
    }

    TEST_CASE("aliases that expand past twice the cassette's size cost their interaction")
    {
        // Nine aliases of nine ("billion laughs"): 9^8 nodes from under 1 KB.
        std::string levels = "      x0: &l0 [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\","
                             "\"lol\",\"lol\",\"lol\"]\n";
        for (int i = 1; i < 8; ++i) {
            levels += fmt::format("      x{0}: &l{0} [", i);
            for (int k = 0; k < 9; ++k) {
                levels += fmt::format("{}*l{}", k == 0 ? "" : ",", i - 1);
            }
            levels += "]\n";
        }
        const auto cassette = [](const std::string& extra) {
            return "interactions:\n- request:\n    method: POST\n    uri: "
                   "https://api.anthropic.com/v1/messages\n    parsed_body:\n      model: "
                   "claude-sonnet-4-5\n" +
                   extra +
                   "      messages:\n      - {role: user, content: hi}\n  response:\n    "
                   "parsed_body:\n      usage: {input_tokens: 10, output_tokens: 1}\n";
        };
        const auto bomb =
            test::load_text(cassette(levels), ingest::InputFormat::auto_detect, "bomb.yaml");
        CHECK(bomb.requests.empty());
        REQUIRE(bomb.summary.errors.size() == 1);
        CHECK(bomb.summary.errors[0].reason.find("alias bomb") != std::string::npos);
        // Few nodes, but a long string repeated: bytes count too.
        std::string strings = "      s0: &s0 " + std::string(20000, 'x') + "\n";
        for (int i = 1; i < 4; ++i) {
            strings += fmt::format("      s{0}: &s{0} [", i);
            for (int k = 0; k < 9; ++k) {
                strings += fmt::format("{}*s{}", k == 0 ? "" : ",", i - 1);
            }
            strings += "]\n";
        }
        const auto long_strings =
            test::load_text(cassette(strings), ingest::InputFormat::auto_detect, "strings.yaml");
        CHECK(long_strings.requests.empty());
        REQUIRE(long_strings.summary.errors.size() == 1);
        CHECK(long_strings.summary.errors[0].reason.find("alias bomb") != std::string::npos);
        // An anchor reused a few times is read.
        const auto few =
            test::load_text(cassette("      x0: &m {a: 1, b: 2}\n      x1: *m\n      x2: *m\n"),
                            ingest::InputFormat::auto_detect, "few.yaml");
        CHECK(few.requests.size() == 1);
    }

    TEST_CASE("a broken gzip body is an error of its interaction")
    {
        std::string bytes("\x1f\x8b\x08\x00garbage", 11); // the NUL is part of the header
        std::string error;
        CHECK_FALSE(ingest::gunzip_if_compressed(bytes, error));
        CHECK(error.rfind("gzip: broken stream", 0) == 0);
        std::string plain = "{\"a\": 1}";
        CHECK(ingest::gunzip_if_compressed(plain, error));
        CHECK(plain == "{\"a\": 1}");
    }

    TEST_CASE("HTTP dates become RFC 3339")
    {
        CHECK(ingest::http_date_to_rfc3339("Fri, 20 Nov 2026 14:03:15 GMT") ==
              "2026-11-20T14:03:15Z");
        CHECK(ingest::http_date_to_rfc3339("yesterday").empty());
    }
}
