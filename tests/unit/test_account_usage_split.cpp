// The two usage schemas and each provider's identities (CW030): cache tokens
// outside input (Anthropic, Bedrock) or inside the prompt total (OpenAI,
// DeepSeek, Gemini, OTel), and gateway records that carry both.

#include "account/usage_split.hpp"
#include "helpers.hpp"

#include <doctest/doctest.h>

using namespace cachewise;

namespace {

// A request whose response carries `usage` (a JSON object of the given key).
model::Request
with_usage(const std::string& usage, const std::string& key = "usage")
{
    return test::request_of(
        R"({"request":{"model":"gpt-4o","messages":[{"role":"user","content":"hi"}]},"response":{")" +
        key + "\":" + usage + "}}");
}

std::vector<std::string>
kinds(const model::Request& r)
{
    std::vector<std::string> out;
    for (const auto& f : account::check_usage(r)) {
        out.push_back(f.kind);
    }
    return out;
}

account::Split
split(const model::Request& r)
{
    REQUIRE(r.usage);
    const auto s = account::reported_split(*r.usage);
    REQUIRE(s);
    return s->split;
}

} // namespace

TEST_SUITE("account::usage_split")
{
    TEST_CASE("DeepSeek: hit + miss = prompt; the split is read hit, fresh miss")
    {
        const auto r = with_usage(
            R"({"prompt_tokens":7911,"completion_tokens":59,"prompt_cache_hit_tokens":7872,"prompt_cache_miss_tokens":39,"prompt_tokens_details":{"cached_tokens":7872}})");
        CHECK(kinds(r).empty());
        const auto s = split(r);
        CHECK(s.read == 7872);
        CHECK(s.fresh == 39);
        CHECK(s.input() == 7911);

        const auto bad = with_usage(
            R"({"prompt_tokens":8000,"prompt_cache_hit_tokens":7872,"prompt_cache_miss_tokens":39,"prompt_tokens_details":{"cached_tokens":7000}})");
        CHECK(kinds(bad) == std::vector<std::string>{"hit+miss", "cached=hit"});
        CHECK(account::check_usage(bad)[0].message.find("hit + miss = prompt") !=
              std::string::npos);
        // Counts in a message carry thousands separators, as in every report.
        CHECK(account::check_usage(bad)[0].message ==
              "identity hit + miss = prompt failed: prompt_cache_hit_tokens 7,872 + "
              "prompt_cache_miss_tokens 39 = 7,911, but prompt_tokens is 8,000");
        CHECK(account::check_usage(bad)[1].message ==
              "identity cached = hit failed: prompt_tokens_details.cached_tokens 7,000 differs "
              "from prompt_cache_hit_tokens 7,872");
    }

    TEST_CASE("OpenAI: cached <= prompt; GPT-5.6 writes are inside the prompt too")
    {
        const auto r = with_usage(
            R"({"prompt_tokens":4020,"completion_tokens":4,"prompt_tokens_details":{"cached_tokens":0,"cache_write_tokens":4012}})");
        CHECK(kinds(r).empty());
        const auto s = split(r);
        CHECK(s.write_5m == 4012);
        CHECK(s.fresh == 8);
        CHECK(s.input() == 4020);

        const auto bad =
            with_usage(R"({"prompt_tokens":100,"prompt_tokens_details":{"cached_tokens":128}})");
        CHECK(kinds(bad) == std::vector<std::string>{"cached<=prompt"});
        CHECK(split(bad).fresh == 0); // never negative
    }

    TEST_CASE("LiteLLM records with both schemas are not counted twice")
    {
        // litellm#11364: prompt_tokens includes the reads and the writes.
        const auto r = with_usage(
            R"({"prompt_tokens":98805,"completion_tokens":500,"prompt_tokens_details":{"cached_tokens":66360},"cache_creation_input_tokens":32435,"cache_read_input_tokens":66360})");
        CHECK(kinds(r).empty());
        CHECK(r.usage->dialect == "litellm");
        const auto s = split(r);
        CHECK(s.read == 66360);
        CHECK(s.write_5m == 32435);
        CHECK(s.fresh == 10);
        CHECK(s.input() == 98805);

        const auto disagree = with_usage(
            R"({"prompt_tokens":98805,"prompt_tokens_details":{"cached_tokens":66360},"cache_read_input_tokens":60000})");
        CHECK(kinds(disagree) == std::vector<std::string>{"two-schemas"});

        const auto twice = with_usage(
            R"({"prompt_tokens":98805,"input_tokens":98805,"cache_read_input_tokens":66360,"cache_creation_input_tokens":32435})");
        CHECK(kinds(twice) == std::vector<std::string>{"two-schemas"});
    }

    TEST_CASE("Gemini: cachedContentTokenCount <= promptTokenCount")
    {
        const auto r = with_usage(R"({"promptTokenCount":5000,"cachedContentTokenCount":6000})",
                                  "usageMetadata");
        CHECK(kinds(r) == std::vector<std::string>{"cached<=prompt"});
        CHECK(account::check_usage(r)[0].message.find("cachedContentTokenCount") !=
              std::string::npos);
    }

    TEST_CASE("Anthropic and Bedrock: cache tokens outside input_tokens")
    {
        const auto r = test::request_of(
            R"({"request":{"model":"claude-sonnet-4-5","messages":[{"role":"user","content":"hi"}]},"response":{"usage":{"input_tokens":10,"cache_read_input_tokens":100,"cache_creation_input_tokens":50,"cache_creation":{"ephemeral_5m_input_tokens":20,"ephemeral_1h_input_tokens":30}}}})");
        CHECK(kinds(r).empty());
        const auto s = split(r);
        CHECK(s.read == 100);
        CHECK(s.write_5m == 20);
        CHECK(s.write_1h == 30);
        CHECK(s.fresh == 10);

        const auto b = test::request_of(
            R"({"request":{"modelId":"anthropic.claude-haiku-4-5","messages":[{"role":"user","content":[{"text":"hi"}]}]},"response":{"usage":{"inputTokens":10,"cacheReadInputTokens":9511,"cacheWriteInputTokens":1956,"cacheDetails":[{"ttl":"1h","inputTokens":1956}]}}})");
        CHECK(kinds(b).empty());
        const auto bs = split(b);
        CHECK(bs.write_1h == 1956);
        CHECK(bs.input() == 10 + 9511 + 1956);
    }
}
