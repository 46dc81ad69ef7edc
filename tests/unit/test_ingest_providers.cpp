// Readers of the other providers' formats: OpenAI Chat Completions and
// Responses (and DeepSeek, OpenRouter, LiteLLM on top), Gemini, Bedrock
// Converse, OpenTelemetry GenAI spans and agent trajectories. Each fixture is
// written here by hand in the provider's documented shape.

#include "helpers.hpp"

#include <doctest/doctest.h>

using namespace cachewise;
using model::ApiFormat;
using model::Level;
using model::SegmentKind;
using model::UsageSchema;

namespace {

std::vector<std::string>
paths(const model::Request& r)
{
    std::vector<std::string> out;
    for (const auto& s : r.segments) {
        out.push_back(s.path.str());
    }
    return out;
}

const char* const k_chat =
    R"({"request":{"model":"gpt-4o","messages":[)"
    R"({"role":"system","content":"You are terse."},)"
    R"({"role":"user","content":[{"type":"text","text":"Weather in Paris?"},{"type":"image_url","image_url":{"url":"data:image/png;base64,AAAA"}}]},)"
    R"({"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"weather","arguments":"{\"city\":\"Paris\"}"}}]},)"
    R"({"role":"tool","tool_call_id":"call_1","content":"18 C"}],)"
    R"("tools":[{"type":"function","function":{"name":"weather","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}}],)"
    R"("prompt_cache_key":"k1","prompt_cache_retention":"24h"},)"
    R"("response":{"object":"chat.completion","model":"gpt-4o-2024-08-06","choices":[{"message":{"role":"assistant","content":"Sunny."}}],)"
    R"("usage":{"prompt_tokens":2473,"completion_tokens":5,"prompt_tokens_details":{"cached_tokens":2304}}}})";

} // namespace

TEST_SUITE("ingest::providers")
{
    TEST_CASE("OpenAI Chat Completions: system, tools, then messages; usage is inclusive")
    {
        const auto r = test::request_of(k_chat);
        CHECK(r.format == ApiFormat::openai_chat);
        CHECK(r.provider == "openai");
        CHECK(paths(r) ==
              std::vector<std::string>{"messages[0].content", "tools[0]", "messages[1].content[0]",
                                       "messages[1].content[1]", "messages[2].tool_calls[0]",
                                       "messages[3].content"});
        CHECK(r.segments[0].path.level == Level::system);
        CHECK(r.segments[1].kind == SegmentKind::tool);
        CHECK(r.segments[3].kind == SegmentKind::image);
        CHECK(r.segments[4].kind == SegmentKind::tool_use);
        CHECK(r.segments[5].kind == SegmentKind::tool_result);
        CHECK(r.cache_key == "k1");
        CHECK(r.retention == "24h");
        CHECK(r.served_model == "gpt-4o-2024-08-06");
        REQUIRE(r.usage);
        CHECK(r.usage->schema == UsageSchema::inclusive);
        CHECK(r.usage->prompt_tokens == 2473);
        CHECK(r.usage->cached_tokens == 2304);
        CHECK(r.prompt_tokens() == 2473); // calibrated to the inclusive total
        REQUIRE(r.continuation);
    }

    TEST_CASE("the response message extends the chain as the next turn sends it back")
    {
        const auto first = test::request_of(k_chat);
        std::string next = k_chat;
        const std::string tail = R"({"role":"tool","tool_call_id":"call_1","content":"18 C"}],)";
        next.replace(
            next.find(tail), tail.size(),
            R"({"role":"tool","tool_call_id":"call_1","content":"18 C"},)"
            R"({"role":"assistant","content":"Sunny."},{"role":"user","content":"Thanks"}],)");
        const auto second = test::request_of(next);
        REQUIRE(first.continuation);
        CHECK(first.continuation->chain == second.segments[6].chain);
    }

    TEST_CASE("a tool message's tool_call_id is part of its identity; a streaming index is not")
    {
        const auto a = test::request_of(
            R"({"model":"gpt-4o","messages":[{"role":"tool","tool_call_id":"a","content":"x"}]})");
        const auto b = test::request_of(
            R"({"model":"gpt-4o","messages":[{"role":"tool","tool_call_id":"b","content":"x"}]})");
        CHECK(a.segments[0].chain != b.segments[0].chain);
        const auto c = test::request_of(
            R"({"model":"gpt-4o","messages":[{"role":"assistant","tool_calls":[{"index":0,"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]}]})");
        const auto d = test::request_of(
            R"({"model":"gpt-4o","messages":[{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]}]})");
        CHECK(c.segments[0].chain == d.segments[0].chain);
    }

    TEST_CASE("GPT-5.6 breakpoints and explicit mode are read")
    {
        const auto r = test::request_of(
            R"({"model":"gpt-5.6","prompt_cache_options":{"mode":"explicit","ttl":"30m"},"messages":[{"role":"user","content":[{"type":"text","text":"corpus","prompt_cache_breakpoint":{"mode":"explicit"}},{"type":"text","text":"question"}]}]})");
        CHECK(r.explicit_mode);
        CHECK(r.retention == "30m");
        CHECK(r.segments[0].cache_control);
        CHECK(!r.segments[1].cache_control);
    }

    TEST_CASE("DeepSeek: named by its model or by its usage behind a gateway")
    {
        const auto r = test::request_of(
            R"({"request":{"model":"deepseek-chat","messages":[{"role":"user","content":"hi"}]},"response":{"usage":{"prompt_tokens":7911,"completion_tokens":59,"prompt_cache_hit_tokens":7872,"prompt_cache_miss_tokens":39,"prompt_tokens_details":{"cached_tokens":7872}}}})");
        CHECK(r.provider == "deepseek");
        CHECK(r.usage->dialect == "deepseek");
        const auto g = test::request_of(
            R"({"request":{"model":"my-alias","messages":[{"role":"system","content":"s"},{"role":"user","content":"hi"}]},"response":{"usage":{"prompt_tokens":100,"prompt_cache_hit_tokens":64,"prompt_cache_miss_tokens":36}}})");
        CHECK(g.provider == "deepseek");
    }

    TEST_CASE("OpenRouter in front of Claude: Anthropic's cache, breakpoints from cache_control")
    {
        const auto r = test::request_of(
            R"({"request":{"model":"anthropic/claude-sonnet-4.6","messages":[{"role":"system","content":[{"type":"text","text":"long system","cache_control":{"type":"ephemeral","ttl":"5m"}}]},{"role":"user","content":"hi"}]},"response":{"model":"anthropic/claude-4.6-sonnet-20260217","provider":"Anthropic","usage":{"prompt_tokens":2572,"completion_tokens":63,"prompt_tokens_details":{"cached_tokens":0,"cache_write_tokens":2569}}}})");
        CHECK(r.format == ApiFormat::openai_chat);
        CHECK(r.provider == "anthropic");
        CHECK(r.route == "Anthropic");
        CHECK(r.segments[0].cache_control);
        CHECK(ruleset::normalize_model_id(r.billed_model()) == "claude-sonnet-4-6");
    }

    TEST_CASE("OpenAI Responses: instructions, items, previous_response_id; input_tokens is "
              "inclusive")
    {
        const auto r = test::request_of(
            R"({"request":{"model":"gpt-5","instructions":"Be brief.","previous_response_id":"resp_1","input":[)"
            R"({"role":"user","content":[{"type":"input_text","text":"Tokyo?"}]},)"
            R"({"type":"function_call","id":"fc_1","status":"completed","call_id":"c1","name":"temp","arguments":"{}"},)"
            R"({"type":"function_call_output","call_id":"c1","output":"21"}],)"
            R"("tools":[{"type":"function","name":"temp","parameters":{"type":"object"}}]},)"
            R"("response":{"object":"response","usage":{"input_tokens":444,"input_tokens_details":{"cached_tokens":384},"output_tokens":14}}})");
        CHECK(r.format == ApiFormat::openai_responses);
        CHECK(paths(r) == std::vector<std::string>{"instructions", "tools[0]", "input",
                                                   "input[0].content[0]", "input[1]", "input[2]"});
        CHECK(r.segments[2].kind == SegmentKind::unlogged);
        CHECK(r.segments[4].kind == SegmentKind::tool_use);
        CHECK(r.segments[5].kind == SegmentKind::tool_result);
        REQUIRE(r.usage);
        CHECK(r.usage->schema == UsageSchema::inclusive);
        CHECK(r.usage->prompt_tokens == 444);
        CHECK(!r.usage->input_tokens);
        CHECK(r.prompt_tokens() == 444);
    }

    TEST_CASE("Responses output items extend the chain as the next input sends them back")
    {
        // The client echoes the reasoning item with "encrypted_content": null
        // and drops ids and statuses: the same items to the API.
        const auto first = test::request_of(
            R"({"request":{"model":"deepseek-v4-flash","input":"Tokyo?"},)"
            R"("response":{"object":"response","output":[)"
            R"({"type":"reasoning","id":"r1","status":"completed","summary":[],"content":[{"type":"reasoning_text","text":"Call the tool."}]},)"
            R"({"type":"function_call","id":"f1","status":"completed","call_id":"c1","name":"temp","arguments":"{}"}],)"
            R"("usage":{"input_tokens":366,"input_tokens_details":{"cached_tokens":0},"output_tokens":63}}})");
        const auto second = test::request_of(
            R"({"model":"deepseek-v4-flash","input":[{"role":"user","content":"Tokyo?"},)"
            R"({"type":"reasoning","summary":[],"encrypted_content":null,"content":[{"type":"reasoning_text","text":"Call the tool."}]},)"
            R"({"type":"function_call","call_id":"c1","name":"temp","arguments":"{}"},)"
            R"({"type":"function_call_output","call_id":"c1","output":"21"}]})");
        REQUIRE(first.continuation);
        CHECK(first.continuation->chain == second.segments[2].chain);
        CHECK(first.continuation->tokens > first.prompt_tokens());
        // A changed item is another continuation.
        std::string other =
            R"({"model":"deepseek-v4-flash","input":[{"role":"user","content":"Tokyo?"},)"
            R"({"type":"reasoning","summary":[],"content":[{"type":"reasoning_text","text":"Call the tool."}]},)"
            R"({"type":"function_call","call_id":"c2","name":"temp","arguments":"{}"}]})";
        CHECK(first.continuation->chain != test::request_of(other).segments[2].chain);
    }

    TEST_CASE("Gemini generateContent: systemInstruction, function declarations, parts")
    {
        const auto r = test::request_of(
            R"({"request":{"systemInstruction":{"parts":[{"text":"You are terse."}]},)"
            R"("tools":[{"functionDeclarations":[{"name":"a","parameters":{"type":"object"}},{"name":"b"}]},{"googleSearch":{}}],)"
            R"("contents":[{"role":"user","parts":[{"text":"hi"},{"inlineData":{"mimeType":"image/png","data":"AAAA"}}]},)"
            R"({"role":"model","parts":[{"functionCall":{"name":"a","args":{"x":1}}}]},)"
            R"({"role":"user","parts":[{"functionResponse":{"name":"a","response":{"y":2}}}]}]},)"
            R"("response":{"modelVersion":"gemini-2.5-flash","usageMetadata":{"promptTokenCount":5000,"cachedContentTokenCount":4096,"candidatesTokenCount":20,"thoughtsTokenCount":30}}})");
        CHECK(r.format == ApiFormat::gemini);
        CHECK(r.provider == "gemini");
        CHECK(r.model == "gemini-2.5-flash"); // from the response: the URL names it
        CHECK(paths(r) == std::vector<std::string>{"systemInstruction.parts[0]",
                                                   "tools[0].functionDeclarations[0]",
                                                   "tools[0].functionDeclarations[1]", "tools[1]",
                                                   "contents[0].parts[0]", "contents[0].parts[1]",
                                                   "contents[1].parts[0]", "contents[2].parts[0]"});
        CHECK(r.segments[5].kind == SegmentKind::image);
        CHECK(r.segments[6].kind == SegmentKind::tool_use);
        CHECK(r.segments[6].role == model::Role::assistant);
        CHECK(r.segments[7].kind == SegmentKind::tool_result);
        REQUIRE(r.usage);
        CHECK(r.usage->dialect == "gemini");
        CHECK(r.usage->output_tokens == 50); // thoughts are billed as output
    }

    TEST_CASE("Gemini explicit caches: cachedContents.create and a request that reads one")
    {
        const auto loaded = test::load_text(
            R"({"request":{"model":"models/gemini-2.5-flash","contents":[{"role":"user","parts":[{"text":"corpus"}]}],"ttl":"600s"},"response":{"name":"cachedContents/abc","expireTime":"2026-11-29T10:10:00Z"}})"
            "\n"
            R"({"request":{"cachedContent":"cachedContents/abc","contents":[{"role":"user","parts":[{"text":"q"}]}]},"response":{"modelVersion":"gemini-2.5-flash","usageMetadata":{"promptTokenCount":3050,"cachedContentTokenCount":3000}}})"
            "\n");
        REQUIRE(loaded.requests.size() == 2);
        const auto& create = loaded.requests[0];
        REQUIRE(create.cache_create);
        CHECK(create.cache_create->name == "cachedContents/abc");
        CHECK(create.cache_create->ttl_seconds == 600.0);
        CHECK(create.model == "gemini-2.5-flash");
        const auto& use = loaded.requests[1];
        CHECK(use.cached_content == "cachedContents/abc");
        // The cache's content, made earlier in the log, is the request's prefix.
        REQUIRE(use.segments.size() == 2);
        CHECK(use.segments[0].path.str() == "cachedContent:contents[0].parts[0]");
        CHECK(use.segments[0].chain == create.segments[0].chain);
        CHECK(use.prompt_tokens() == 3050); // calibrated to the usage
        CHECK(use.segments[1].path.str() == "contents[0].parts[0]");
    }

    TEST_CASE("Bedrock Converse: cachePoint marks the block before it; usage is exclusive")
    {
        const auto r = test::request_of(
            R"({"request":{"modelId":"us.anthropic.claude-haiku-4-5-20251001-v1:0",)"
            R"("toolConfig":{"tools":[{"toolSpec":{"name":"t","inputSchema":{"json":{"type":"object"}}}},{"cachePoint":{"type":"default"}}]},)"
            R"("system":[{"cachePoint":{"type":"default","ttl":"1h"}},{"text":"You are terse."},{"cachePoint":{"type":"default"}}],)"
            R"("messages":[{"role":"user","content":[{"text":"hi"},{"image":{"format":"png","source":{"bytes":"AAAA"}}}]}]},)"
            R"("response":{"usage":{"inputTokens":10,"outputTokens":5,"cacheReadInputTokens":9511,"cacheWriteInputTokens":1956}}})");
        CHECK(r.format == ApiFormat::bedrock_converse);
        CHECK(r.provider == "bedrock");
        CHECK(paths(r) == std::vector<std::string>{"toolConfig.tools[0]", "system[1]",
                                                   "messages[0].content[0]",
                                                   "messages[0].content[1]"});
        REQUIRE(r.segments[0].cache_control); // the tools' cachePoint, and the 1h one after it
        CHECK(r.segments[0].cache_control->ttl == model::Ttl::one_hour);
        CHECK(r.segments[1].cache_control);
        CHECK(r.segments[3].kind == SegmentKind::image);
        REQUIRE(r.usage);
        CHECK(r.usage->schema == UsageSchema::exclusive);
        CHECK(r.usage->dialect == "bedrock");
        CHECK(r.usage->total_input() == 10 + 9511 + 1956);
    }

    TEST_CASE("a cache created outside the log stands as one unlogged segment")
    {
        const auto r = test::request_of(
            R"({"request":{"model":"gemini-2.5-flash","cachedContent":"cachedContents/zzz","contents":[{"role":"user","parts":[{"text":"q"}]}]},"response":{"usageMetadata":{"promptTokenCount":3050,"cachedContentTokenCount":3000}}})");
        REQUIRE(r.segments.size() == 2);
        CHECK(r.segments[0].kind == SegmentKind::unlogged);
        CHECK(r.segments[0].tokens > 2900); // inferred from the usage
    }

    TEST_CASE("a per-call gateway log (OpenHands over LiteLLM): body beside the response")
    {
        const auto r = test::request_of(
            R"({"messages":[{"role":"system","content":"You are an agent."},{"role":"user","content":"hi"}],)"
            R"("tools":[{"type":"function","function":{"name":"bash","parameters":{"type":"object"}}}],)"
            R"("kwargs":{"tools":[],"temperature":0,"tool_choice":"auto"},"context_window":200000,"cost":0.01,)"
            R"("timestamp":1757015025.5,"latency_sec":4.5,)"
            R"("response":{"model":"litellm_proxy/claude-sonnet-4-20250514","usage":{"prompt_tokens":4812,"completion_tokens":146,"prompt_tokens_details":{"cached_tokens":0},"cache_creation_input_tokens":0,"cache_read_input_tokens":0}}})");
        CHECK(r.format == ApiFormat::openai_chat);
        CHECK(r.provider == "anthropic");
        CHECK(r.model == "litellm_proxy/claude-sonnet-4-20250514");
        REQUIRE(r.started_at);
        CHECK(format_rfc3339(*r.started_at) == "2025-09-04T19:43:41.000Z");
        REQUIRE(r.ended_at);
        REQUIRE(r.param("tool_choice"));
        CHECK(r.param("tool_choice")->value == "\"auto\"");
        CHECK(r.segments.size() == 3); // kwargs.tools does not add tools
        CHECK(r.usage->dialect == "litellm");
    }

    TEST_CASE("LiteLLM's logging payload: startTime, completionStartTime, endTime")
    {
        const auto r = test::request_of(
            R"({"model":"gpt-4o","messages":[{"role":"user","content":"hi"}],"startTime":1764400000.5,"completionStartTime":"2025-11-29T07:06:41Z","endTime":1764400002,"response":{"usage":{"prompt_tokens":10,"completion_tokens":2}}})");
        REQUIRE(r.started_at);
        CHECK(format_rfc3339(*r.started_at) == "2025-11-29T07:06:40.500Z");
        REQUIRE(r.first_token_at);
        REQUIRE(r.ended_at);
    }

    TEST_CASE("OpenTelemetry GenAI spans: an OTLP export, non-GenAI spans skipped")
    {
        const auto loaded = test::load_text(
            R"({"resourceSpans":[{"scopeSpans":[{"spans":[)"
            R"({"traceId":"t1","spanId":"s1","name":"http","attributes":[{"key":"http.method","value":{"stringValue":"POST"}}]},)"
            R"({"traceId":"t1","spanId":"s2","name":"chat gpt-4o","startTimeUnixNano":"1764400000000000000","endTimeUnixNano":"1764400002000000000","attributes":[)"
            R"({"key":"gen_ai.provider.name","value":{"stringValue":"openai"}},)"
            R"({"key":"gen_ai.request.model","value":{"stringValue":"gpt-4o"}},)"
            R"({"key":"gen_ai.conversation.id","value":{"stringValue":"conv-7"}},)"
            R"({"key":"gen_ai.usage.input_tokens","value":{"intValue":"2000"}},)"
            R"({"key":"gen_ai.usage.output_tokens","value":{"intValue":"10"}},)"
            R"({"key":"gen_ai.usage.cache_read.input_tokens","value":{"intValue":"1792"}},)"
            R"({"key":"gen_ai.system_instructions","value":{"stringValue":"[{\"type\":\"text\",\"content\":\"Be terse.\"}]"}},)"
            R"({"key":"gen_ai.input.messages","value":{"stringValue":"[{\"role\":\"user\",\"parts\":[{\"type\":\"text\",\"content\":\"hi\"}]}]"}})"
            R"(]}]}]}]})"
            "\n");
        REQUIRE(loaded.requests.size() == 1);
        CHECK(loaded.summary.skipped == 1);
        const auto& r = loaded.requests[0];
        CHECK(r.id == "s2");
        CHECK(r.stream == "conv-7");
        CHECK(r.provider == "openai");
        CHECK(r.segments.size() == 2);
        CHECK(r.segments[0].path.level == Level::system);
        REQUIRE(r.usage);
        CHECK(r.usage->schema == UsageSchema::inclusive);
        CHECK(r.usage->prompt_tokens == 2000);
        CHECK(r.usage->cached_tokens == 1792);
        REQUIRE(r.started_at);
        CHECK(format_rfc3339(*r.started_at) == "2025-11-29T07:06:40.000Z");
    }

    TEST_CASE("an OpenTelemetry span with usage but no prompt is known by its counts")
    {
        const auto r = test::request_of(
            R"({"traceId":"t","spanId":"x","attributes":{"gen_ai.system":"anthropic","gen_ai.request.model":"claude-sonnet-4-5","gen_ai.usage.input_tokens":100,"gen_ai.usage.output_tokens":5}})");
        CHECK(!r.prompt_logged);
        CHECK(r.provider == "anthropic");
        CHECK(r.usage->prompt_tokens == 100);
    }

    TEST_CASE("a mini-swe-agent trajectory: one request per answered assistant message")
    {
        const auto loaded = test::load_text(
            "{\n"
            R"("trajectory_format":"mini-swe-agent-1","instance_id":"repo-1","info":{"config":{"model":{"model_name":"google/gemini-3-pro-preview"}}},)"
            "\n"
            R"("messages":[{"role":"system","content":"You are an agent."},)"
            "\n"
            R"({"role":"user","content":"Fix the bug."},)"
            "\n"
            R"({"role":"assistant","content":"ls","extra":{"response":{"created":1763509001,"provider":"Google","usage":{"prompt_tokens":1510,"completion_tokens":12,"prompt_tokens_details":{"cached_tokens":0}}}}},)"
            "\n"
            R"({"role":"user","content":"a.py b.py"},)"
            "\n"
            R"({"role":"assistant","content":"cat a.py","extra":{"response":{"created":1763509005,"provider":"Google AI Studio","usage":{"prompt_tokens":1530,"completion_tokens":9,"prompt_tokens_details":{"cached_tokens":0}}}}}])"
            "\n}\n",
            ingest::InputFormat::auto_detect, "run.traj.json");
        REQUIRE(loaded.requests.size() == 2);
        const auto& a = loaded.requests[0];
        const auto& b = loaded.requests[1];
        CHECK(a.stream == "repo-1");
        CHECK(a.provider == "gemini");
        CHECK(a.segments.size() == 2);
        CHECK(b.segments.size() == 4);
        CHECK(b.segments[1].chain == a.segments[1].chain); // append-only history
        CHECK(a.route == "Google");
        CHECK(b.route == "Google AI Studio");
        // Each points at the line of its assistant message, not at the
        // document's first.
        CHECK(a.line == 5);
        CHECK(b.line == 7);
    }

    TEST_CASE("SSE streams of other providers: the last usage wins")
    {
        const auto chat =
            test::load_text("data: "
                            "{\"object\":\"chat.completion.chunk\",\"model\":\"gpt-4o\","
                            "\"choices\":[{\"delta\":{\"content\":\"Hi\"}}],\"usage\":null}\n\n"
                            "data: "
                            "{\"object\":\"chat.completion.chunk\",\"model\":\"gpt-4o\","
                            "\"choices\":[],\"usage\":{\"prompt_tokens\":1300,\"completion_"
                            "tokens\":2,\"prompt_tokens_details\":{\"cached_tokens\":1280}}}\n\n"
                            "data: [DONE]\n\n",
                            ingest::InputFormat::auto_detect, "chat.sse");
        REQUIRE(chat.requests.size() == 1);
        REQUIRE(chat.requests[0].usage);
        CHECK(chat.requests[0].usage->cached_tokens == 1280);
        CHECK(chat.requests[0].usage->schema == UsageSchema::inclusive);

        const auto responses = test::load_text(
            "event: response.created\n"
            "data: "
            "{\"type\":\"response.created\",\"response\":{\"object\":\"response\",\"model\":\"gpt-"
            "5\",\"usage\":null}}\n\n"
            "event: response.completed\n"
            "data: "
            "{\"type\":\"response.completed\",\"response\":{\"object\":\"response\",\"model\":"
            "\"gpt-5\",\"usage\":{\"input_tokens\":444,\"input_tokens_details\":{\"cached_tokens\":"
            "384},\"output_tokens\":14}}}\n\n",
            ingest::InputFormat::auto_detect, "responses.sse");
        REQUIRE(responses.requests.size() == 1);
        REQUIRE(responses.requests[0].usage);
        CHECK(responses.requests[0].usage->prompt_tokens == 444);

        const auto gemini = test::load_text(
            "data: {\"candidates\":[],\"usageMetadata\":{\"promptTokenCount\":5000}}\n\n"
            "data: "
            "{\"candidates\":[],\"usageMetadata\":{\"promptTokenCount\":5000,"
            "\"cachedContentTokenCount\":4096,\"candidatesTokenCount\":7},\"modelVersion\":"
            "\"gemini-2.5-pro\"}\n\n",
            ingest::InputFormat::auto_detect, "gemini.sse");
        REQUIRE(gemini.requests.size() == 1);
        CHECK(gemini.requests[0].usage->cached_tokens == 4096);
        CHECK(gemini.requests[0].model == "gemini-2.5-pro");
    }

    TEST_CASE("a body with only model and messages goes by its model")
    {
        CHECK(test::request_of(R"({"model":"gpt-4o","messages":[{"role":"user","content":"hi"}]})")
                  .format == ApiFormat::openai_chat);
        CHECK(test::request_of(
                  R"({"model":"claude-sonnet-4-5","messages":[{"role":"user","content":"hi"}]})")
                  .format == ApiFormat::anthropic);
        // Both read one string message alike.
        CHECK(test::request_of(R"({"model":"gpt-4o","messages":[{"role":"user","content":"hi"}]})")
                  .segments[0]
                  .content ==
              test::request_of(R"({"model":"x","messages":[{"role":"user","content":"hi"}]})")
                  .segments[0]
                  .content);
    }

    TEST_CASE("in one file, a body of only model and messages goes by its model after others")
    {
        // The format of the first record is kept for the next ones, but a
        // model served through Chat Completions is no Anthropic request; a
        // Claude model through a gateway's Chat Completions stays one.
        const std::string claude =
            R"({"model":"claude-sonnet-4-5","max_tokens":64,"system":"Be terse.","messages":[{"role":"user","content":"hi"}]})";
        const std::string gpt = R"({"model":"gpt-4o","messages":[{"role":"user","content":"hi"}]})";
        const std::string chat =
            R"({"model":"gpt-4o","messages":[{"role":"user","content":"hi"}],"response_format":{"type":"text"}})";
        const std::string claude_chat =
            R"({"model":"claude-sonnet-4-5","messages":[{"role":"user","content":"hi"}]})";
        const auto mixed = test::load_text(claude + "\n" + gpt + "\n" + claude + "\n");
        REQUIRE(mixed.requests.size() == 3);
        CHECK(mixed.requests[0].format == ApiFormat::anthropic);
        CHECK(mixed.requests[1].format == ApiFormat::openai_chat);
        CHECK(mixed.requests[1].provider == "openai");
        CHECK(mixed.requests[2].format == ApiFormat::anthropic);
        const auto gateway = test::load_text(chat + "\n" + claude_chat + "\n");
        REQUIRE(gateway.requests.size() == 2);
        CHECK(gateway.requests[1].format == ApiFormat::openai_chat);
    }

    TEST_CASE("broken records of other formats name the field")
    {
        const auto loaded = test::load_text(
            R"({"contents":[{"role":"robot","parts":[{"text":"x"}]}]})"
            "\n"
            R"({"model":"gpt-4o","messages":[{"role":"user","content":7}],"max_completion_tokens":5})"
            "\n"
            R"({"modelId":"m","messages":[{"role":"user","content":[{"text":"x"}]}]})"
            "\n");
        CHECK(loaded.requests.size() == 1);
        REQUIRE(loaded.summary.errors.size() == 2);
        CHECK(loaded.summary.errors[0].field == "contents[0].role");
        CHECK(loaded.summary.errors[1].field == "messages[0].content");
        CHECK(loaded.summary.errors[1].reason ==
              "expected a string, null or an array of content parts, found a number");
    }
}
