#include "helpers.hpp"
#include "ingest/anthropic_request.hpp"
#include "model/breakpoints.hpp"

#include <doctest/doctest.h>

using namespace cachewise;
using cachewise::test::load_text;
using cachewise::test::request_of;

TEST_SUITE("ingest::anthropic")
{
    TEST_CASE("segments in render order: tools, system, messages, whatever the key order")
    {
        const auto r = request_of(
            R"({"messages":[{"content":[{"type":"text","text":"q","cache_control":{"type":"ephemeral"}}],"role":"user"}],
                "system":[{"type":"text","text":"A"},{"type":"text","text":"B","cache_control":{"type":"ephemeral","ttl":"1h"}}],
                "tools":[{"name":"t1","input_schema":{"type":"object"}},{"name":"t2","input_schema":{"type":"object"}}],
                "model":"claude-sonnet-4-5","max_tokens":10})");
        REQUIRE(r.segments.size() == 5);
        CHECK(r.segments[0].path.str() == "tools[0]");
        CHECK(r.segments[1].path.str() == "tools[1]");
        CHECK(r.segments[2].path.str() == "system[0]");
        CHECK(r.segments[3].path.str() == "system[1]");
        CHECK(r.segments[4].path.str() == "messages[0].content[0]");
        CHECK(r.segments[0].kind == model::SegmentKind::tool);
        CHECK(r.segments[4].role == model::Role::user); // role came after content
        CHECK(r.segments[4].message_start);
        CHECK(r.segments[3].cache_control->ttl == model::Ttl::one_hour);
        CHECK(r.segments[4].cache_control->ttl == model::Ttl::five_minutes);
        CHECK(!r.segments[2].cache_control);
        CHECK(r.model == "claude-sonnet-4-5");
    }

    TEST_CASE("an earlier turn's thinking a model strips counts no tokens; kept, it counts")
    {
        const auto body = [](const std::string& model, const std::string& next) {
            return R"({"model":")" + model + R"(","messages":[{"role":"user","content":"q"},
                {"role":"assistant","content":[{"type":"thinking","thinking":"let me think about this at length","signature":"abc"},
                {"type":"text","text":"an answer"}]},)" +
                   next + "]}";
        };
        const std::string user = R"({"role":"user","content":"thanks, and then?"})";
        // claude-sonnet-4-5 strips it before a user turn (rules: thinking_kept_models).
        const auto stripped = request_of(body("claude-sonnet-4-5", user));
        REQUIRE(stripped.segments.size() == 4);
        CHECK(stripped.segments[1].kind == model::SegmentKind::thinking);
        CHECK(stripped.segments[1].tokens == 0);
        CHECK(stripped.segments[1].cumulative_tokens == stripped.segments[0].cumulative_tokens);
        // claude-opus-4-5 keeps it.
        CHECK(request_of(body("claude-opus-4-5", user)).segments[1].tokens > 0);
        // Before tool results it is part of the tool-use turn, kept by every model.
        const std::string results =
            R"({"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]})";
        CHECK(request_of(body("claude-sonnet-4-5", results)).segments[1].tokens > 0);
    }

    TEST_CASE("cache_control is not allowed on thinking blocks or empty text")
    {
        const auto r = request_of(
            R"({"model":"claude-sonnet-4-5","messages":[{"role":"user","content":"q"},
                {"role":"assistant","content":[{"type":"thinking","thinking":"hmm","signature":"abc"},{"type":"text","text":""}]}],
                "cache_control":{"type":"ephemeral"}})");
        REQUIRE(r.segments.size() == 3);
        CHECK(r.segments[1].kind == model::SegmentKind::thinking);
        CHECK(!r.segments[1].cache_control_allowed);
        CHECK(!r.segments[2].cache_control_allowed);
        // The automatic breakpoint walks back over both to the user text.
        CHECK(model::automatic_breakpoint(r) == std::optional<std::size_t>(0));
        const auto bps = model::breakpoints(r);
        REQUIRE(bps.size() == 1);
        CHECK(bps[0].automatic);
    }

    TEST_CASE(
        "an explicit marker with the same TTL on the last block makes the automatic one a no-op")
    {
        const auto r = request_of(
            R"({"model":"claude-sonnet-4-5","cache_control":{"type":"ephemeral"},
                "messages":[{"role":"user","content":[{"type":"text","text":"q","cache_control":{"type":"ephemeral"}}]}]})");
        CHECK(model::breakpoints(r).size() == 1);
        CHECK(!model::breakpoints(r)[0].automatic);
    }

    TEST_CASE(
        "derived parameters: web search tool, citations, images, tool_choice, thinking, effort")
    {
        const auto r = request_of(
            R"({"model":"claude-opus-4-5","tools":[{"type":"web_search_20250305","name":"web_search"}],
                "tool_choice":{"type":"auto"},"thinking":{"budget_tokens":2000,"type":"enabled"},
                "output_config":{"effort":"high"},
                "messages":[{"role":"user","content":[{"type":"document","source":{"type":"text","media_type":"text/plain","data":"The grass is green."},"citations":{"enabled":true}},
                                                       {"type":"text","text":"What colour?"}]}]})");
        CHECK(r.param("web_search")->value == "on");
        CHECK(r.param("citations")->value == "on");
        CHECK(r.param("images")->value == "no");
        CHECK(r.param("tool_choice")->value == R"({"type":"auto"})");
        CHECK(r.param("thinking")->value == R"({"budget_tokens":2000,"type":"enabled"})");
        CHECK(r.param("effort")->value == "high");
        CHECK(r.param("speed")->present == false);
        CHECK(r.param("tool_choice")->level == model::Level::messages);
        CHECK(r.param("web_search")->level == model::Level::system);
        CHECK(r.segments[1].kind == model::SegmentKind::document);
    }

    TEST_CASE("base64 images are estimated per image, not by their bytes")
    {
        const std::string data(200000, 'A');
        const auto r = request_of(
            R"({"model":"claude-sonnet-4-5","messages":[{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":")" +
            data + R"("}}]}]})");
        const double image = test::rules().tokens.image_tokens.value;
        CHECK(r.segments[0].tokens < image + 50);
        CHECK(r.segments[0].tokens >= image);
    }

    TEST_CASE("exchange records: metadata, times and usage")
    {
        const auto loaded = load_text(
            R"({"id":"req_1","session":"s1","started_at":"2026-11-20T14:00:00Z","first_token_at":1795183201.5,"ended_at":"2026-11-20T14:00:05Z",
                "request":{"model":"claude-sonnet-4-5","messages":[{"role":"user","content":"hi"}]},
                "response":{"id":"msg_1","type":"message","model":"claude-sonnet-4-5","usage":{"input_tokens":3,"cache_read_input_tokens":2000,"cache_creation_input_tokens":100,
                  "cache_creation":{"ephemeral_5m_input_tokens":60,"ephemeral_1h_input_tokens":40},"output_tokens":12}}})"
            "\n");
        REQUIRE(loaded.requests.size() == 1);
        const auto& r = loaded.requests[0];
        CHECK(r.id == "req_1");
        CHECK(r.stream == "s1");
        CHECK(format_rfc3339(*r.started_at) == "2026-11-20T14:00:00.000Z");
        CHECK(format_rfc3339(*r.first_token_at) == "2026-11-20T14:00:01.500Z");
        REQUIRE(r.usage);
        CHECK(r.usage->total_input() == 2103);
        CHECK(r.usage->cache_write_5m == 60);
        CHECK(r.usage->cache_write_1h == 40);
        CHECK(r.prompt_tokens() == 2103); // calibrated to the total
        CHECK(r.segments[0].token_source == model::TokenSource::calibrated);
    }

    TEST_CASE("a record without its own id is known as file:line")
    {
        const auto loaded = load_text("\n"
                                      R"({"model":"m","messages":[{"role":"user","content":"hi"}]})"
                                      "\n");
        REQUIRE(loaded.requests.size() == 1);
        CHECK(loaded.requests[0].id.size() > 2);
        CHECK(loaded.requests[0].id.substr(loaded.requests[0].id.size() - 2) == ":2");
        CHECK(loaded.summary.skipped == 1);
    }

    TEST_CASE("metadata.user_id names the stream when no session is given")
    {
        const auto r = request_of(
            R"({"model":"m","metadata":{"user_id":"u-42"},"messages":[{"role":"user","content":"hi"}]})");
        CHECK(r.stream == "u-42");
    }

    TEST_CASE("an SSE stream as the response: message_start, then cumulative message_delta; the "
              "last wins")
    {
        const std::string sse =
            "event: message_start\\ndata: "
            "{\\\"type\\\":\\\"message_start\\\",\\\"message\\\":{\\\"id\\\":\\\"msg_9\\\","
            "\\\"model\\\":\\\"claude-sonnet-4-5\\\","
            "\\\"usage\\\":{\\\"input_tokens\\\":10,\\\"cache_read_input_tokens\\\":500,\\\"cache_"
            "creation_input_tokens\\\":0,\\\"output_tokens\\\":1}}}\\n\\n"
            "event: message_delta\\ndata: "
            "{\\\"type\\\":\\\"message_delta\\\",\\\"usage\\\":{\\\"output_tokens\\\":20}}\\n\\n"
            "event: message_delta\\ndata: "
            "{\\\"type\\\":\\\"message_delta\\\",\\\"usage\\\":{\\\"input_tokens\\\":10,\\\"cache_"
            "read_input_tokens\\\":500,\\\"output_tokens\\\":42}}\\n\\n"
            "event: message_stop\\ndata: {\\\"type\\\":\\\"message_stop\\\"}\\n\\n";
        const auto loaded = load_text(
            R"({"request":{"model":"claude-sonnet-4-5","messages":[{"role":"user","content":"hi"}]},"response":")" +
            sse + "\"}\n");
        REQUIRE(loaded.requests.size() == 1);
        const auto& u = *loaded.requests[0].usage;
        CHECK(u.output_tokens == 42);
        CHECK(u.cache_read == 500);
        CHECK(u.total_input() == 510);
    }

    TEST_CASE("an SSE file alone gives a response-only request")
    {
        const auto loaded = load_text(
            "event: message_start\n"
            R"(data: {"type":"message_start","message":{"id":"msg_1","model":"claude-haiku-4-5","usage":{"input_tokens":7,"cache_creation_input_tokens":4100,"cache_read_input_tokens":0,"output_tokens":1}}})"
            "\n\nevent: message_delta\n"
            R"(data: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":99}})"
            "\n\n",
            ingest::InputFormat::auto_detect, "stream.sse");
        REQUIRE(loaded.requests.size() == 1);
        const auto& r = loaded.requests[0];
        CHECK(!r.prompt_logged);
        CHECK(r.model == "claude-haiku-4-5");
        CHECK(r.usage->output_tokens == 99);
        CHECK(r.usage->total_input() == 4107);
    }

    TEST_CASE("a compaction response is summed from usage.iterations")
    {
        const auto loaded = load_text(
            R"({"request":{"model":"claude-sonnet-4-6","messages":[{"role":"user","content":"hi"}]},"response":{"type":"message","usage":{"input_tokens":229,"cache_read_input_tokens":0,"cache_creation_input_tokens":0,"output_tokens":5,
                "iterations":[{"type":"compaction","input_tokens":100,"cache_creation_input_tokens":55096,"cache_read_input_tokens":0,"output_tokens":131,"cache_creation":{"ephemeral_5m_input_tokens":55096,"ephemeral_1h_input_tokens":0}},
                              {"type":"message","input_tokens":229,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":5}]}}})"
            "\n");
        REQUIRE(loaded.requests.size() == 1);
        const auto& u = *loaded.requests[0].usage;
        CHECK(u.summed_from_iterations);
        CHECK(u.input_tokens == 329);
        CHECK(u.cache_write == 55096);
        CHECK(u.output_tokens == 136);
        CHECK(loaded.requests[0].notes.back().find("iterations") != std::string::npos);
    }

    TEST_CASE("an error response is kept as a note, without usage")
    {
        const auto loaded = load_text(
            R"({"request":{"model":"m","messages":[{"role":"user","content":"hi"}]},"response":{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}})"
            "\n");
        REQUIRE(loaded.requests.size() == 1);
        CHECK(!loaded.requests[0].usage);
        CHECK(loaded.requests[0].notes[0] ==
              "the response was an error: overloaded_error: Overloaded");
    }

    TEST_CASE("a pretty-printed request document")
    {
        const auto loaded = load_text("{\n  \"model\": \"claude-sonnet-4-5\",\n  \"messages\": [\n "
                                      "   {\"role\": \"user\", \"content\": \"hi\"}\n  ]\n}\n",
                                      ingest::InputFormat::auto_detect, "request.json");
        REQUIRE(loaded.requests.size() == 1);
        CHECK(loaded.summary.error_count == 0);
        CHECK(loaded.requests[0].segments.size() == 1);
    }
}
