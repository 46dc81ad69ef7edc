#include "helpers.hpp"
#include "live/api_key.hpp"
#include "live/endpoint.hpp"
#include "live/probe_body.hpp"

#include <doctest/doctest.h>

#include <cstdlib>

using namespace cachewise;
using namespace cachewise::live;

TEST_SUITE("live::probe_body")
{
    TEST_CASE("placeholders are filled as JSON string content; the others stay as written")
    {
        const auto r = render_template(R"({"a": "Hi {{ name }}, {{plan}} {{name}}"})",
                                       {{"name", "Ann \"A\"\n"}});
        REQUIRE(r);
        CHECK(r->text == R"({"a": "Hi Ann \"A\"\n, {{plan}} Ann \"A\"\n"})");
        CHECK(r->unfilled == std::vector<std::string>{"plan"});
    }

    TEST_CASE("a variable the template does not use is an error")
    {
        const auto r = render_template(R"({"a": "{{name}}"})", {{"nmae", "x"}});
        REQUIRE_FALSE(r);
        CHECK(r.error() == "--var nmae: the template has no {{nmae}} placeholder");
    }

    TEST_CASE("the body is cut to one output token, streamed, and asks for diagnostics")
    {
        BodyEdits edits;
        edits.previous_message_id = "msg_1";
        const auto b =
            prepare_body(R"({"model":"m","max_tokens":4096,"stream":true,"messages":[]})",
                         model::ApiFormat::anthropic, edits, "t.json");
        REQUIRE(b);
        CHECK(
            *b ==
            R"({"model":"m","max_tokens":1,"stream":true,"messages":[],"diagnostics":{"previous_message_id":"msg_1"}})");
        const auto chat = prepare_body(R"({"model":"gpt-4o","messages":[]})",
                                       model::ApiFormat::openai_chat, {}, "t.json");
        REQUIRE(chat);
        CHECK(
            *chat ==
            R"({"model":"gpt-4o","messages":[],"stream":true,"stream_options":{"include_usage":true},"max_completion_tokens":1})");
        BodyEdits keep;
        keep.keep_max_tokens = true;
        const auto kept = prepare_body(R"({"model":"m","max_tokens":4096})",
                                       model::ApiFormat::anthropic, keep, "t.json");
        CHECK(*kept == R"({"model":"m","max_tokens":4096,"stream":true})");
        const auto bad = prepare_body("[1]", model::ApiFormat::anthropic, {}, "t.json");
        REQUIRE_FALSE(bad);
        CHECK(bad.error() == "t.json: not a JSON object (expected one request body)");
    }

    TEST_CASE("endpoints: provider URLs, base URLs with or without /v1, masked headers")
    {
        const auto a = endpoint_for(model::ApiFormat::anthropic, "anthropic", std::nullopt);
        CHECK(a.create_url() == "https://api.anthropic.com/v1/messages");
        CHECK(a.count_tokens_url() == "https://api.anthropic.com/v1/messages/count_tokens");
        const auto o = endpoint_for(model::ApiFormat::openai_responses, "openai",
                                    std::string("http://127.0.0.1:9/v1/"));
        CHECK(o.create_url() == "http://127.0.0.1:9/v1/responses");
        CHECK(o.count_tokens_url() == "http://127.0.0.1:9/v1/responses/input_tokens");
        CHECK(o.key_variable == "OPENAI_API_KEY");
        const ApiKey key{"sk-secret-value", "OPENAI_API_KEY"};
        const auto masked = o.headers(key, true);
        for (const auto& [name, value] : masked) {
            CHECK(value.find("sk-secret-value") == std::string::npos);
        }
        CHECK(masked.back().second == "<OPENAI_API_KEY, masked>");
        CHECK(o.headers(key, false).back().second == "Bearer sk-secret-value");
        CHECK_THROWS_WITH(
            endpoint_for(model::ApiFormat::anthropic, "anthropic", std::string("127.0.0.1:9")),
            "--base-url \"127.0.0.1:9\": expected an http:// or https:// URL");
        CHECK_THROWS(endpoint_for(model::ApiFormat::gemini, "gemini", std::nullopt));
    }

    TEST_CASE("endpoints: DeepSeek at its root as recorded, without a token count")
    {
        const auto chat = endpoint_for(model::ApiFormat::openai_chat, "deepseek", std::nullopt);
        CHECK(chat.create_url() == "https://api.deepseek.com/chat/completions");
        CHECK(chat.provider == "deepseek");
        CHECK(chat.key_variable == "DEEPSEEK_API_KEY");
        const auto responses =
            endpoint_for(model::ApiFormat::openai_responses, "deepseek", std::nullopt);
        CHECK(responses.create_url() == "https://api.deepseek.com/responses");
        CHECK(responses.provider == "deepseek");
        CHECK(responses.count_tokens_url().empty());
    }

    TEST_CASE("endpoints: Claude in an OpenAI-format body goes to the gateway given, or nowhere")
    {
        CHECK_THROWS_WITH_AS(endpoint_for(model::ApiFormat::openai_chat, "anthropic", std::nullopt),
                             doctest::Contains("a gateway's body (OpenRouter, LiteLLM)"), Error);
        const auto routed = endpoint_for(model::ApiFormat::openai_chat, "anthropic",
                                         std::string("https://openrouter.ai/api/v1"));
        CHECK(routed.create_url() == "https://openrouter.ai/api/v1/chat/completions");
        CHECK(routed.provider == "anthropic"); // whose cache serves it
        CHECK(routed.key_variable == "OPENROUTER_API_KEY");
        const auto proxy = endpoint_for(model::ApiFormat::openai_chat, "gemini",
                                        std::string("http://127.0.0.1:4000"));
        CHECK(proxy.create_url() == "http://127.0.0.1:4000/v1/chat/completions");
        CHECK(proxy.provider == "gemini");
        CHECK(proxy.key_variable == "OPENAI_API_KEY");
    }

    TEST_CASE("the provider's own error message is quoted")
    {
        CHECK(
            provider_error_message(
                R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}})") ==
            "overloaded_error: Overloaded");
        CHECK(provider_error_message(R"({"error":{"message":"Bad key","type":null}})") ==
              "Bad key");
        CHECK(provider_error_message("<html>bad gateway</html>") == "<html>bad gateway</html>");
        CHECK(provider_error_message("") == "(empty body)");
    }

    TEST_CASE("keys come from the key file or the environment and are redacted from text")
    {
        const test::TempFile file("  sk-file-key  \nsecond line\n", "key.txt");
        const auto k = read_api_key("CACHEWISE_TEST_NO_SUCH_VARIABLE", file.path());
        REQUIRE(k);
        REQUIRE(k->has_value());
        CHECK((*k)->value == "sk-file-key");
        CHECK((*k)->origin == "--api-key-file " + file.path());
        CHECK(redact("bad key sk-file-key (sk-file-key)", *k) ==
              "bad key [key redacted] ([key redacted])");
        const auto none = read_api_key("CACHEWISE_TEST_NO_SUCH_VARIABLE", std::nullopt);
        REQUIRE(none);
        CHECK_FALSE(none->has_value());
        ::setenv("CACHEWISE_TEST_KEY", " sk-env ", 1);
        const auto env = read_api_key("CACHEWISE_TEST_KEY", std::nullopt);
        REQUIRE(env);
        CHECK((*env)->value == "sk-env");
        CHECK((*env)->origin == "CACHEWISE_TEST_KEY");
        ::unsetenv("CACHEWISE_TEST_KEY");
        const test::TempFile empty("\n", "empty.txt");
        const auto bad = read_api_key("X", empty.path());
        REQUIRE_FALSE(bad);
        CHECK(bad.error() ==
              "--api-key-file " + empty.path() + ": the first line is empty (expected the key)");
    }
}
