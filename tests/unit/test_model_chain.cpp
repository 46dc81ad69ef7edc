#include "helpers.hpp"
#include "model/chain.hpp"

#include <doctest/doctest.h>

using namespace cachewise;
using cachewise::test::request_of;

namespace {

const char* const k_tool =
    R"({"name":"read_file","description":"Read a file","input_schema":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}})";

std::string
body(const std::string& system, const std::string& messages, const std::string& extra = "")
{
    return std::string(R"({"model":"claude-sonnet-4-5","max_tokens":1024,"tools":[)") + k_tool +
           "],\"system\":" + system + ",\"messages\":" + messages + extra + "}";
}

const std::string k_messages =
    R"([{"role":"user","content":"List the files"},{"role":"assistant","content":[{"type":"text","text":"Sure."},{"type":"tool_use","id":"toolu_1","name":"read_file","input":{"path":"a.txt","limit":10}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"hello"}]}])";

std::vector<Hash128>
chains(const model::Request& r)
{
    std::vector<Hash128> out;
    for (const auto& s : r.segments) {
        out.push_back(s.chain);
    }
    return out;
}

} // namespace

TEST_SUITE("model::chain")
{
    TEST_CASE("JSON whitespace never changes the chain")
    {
        const auto compact = request_of(body(R"("You are terse.")", k_messages));
        std::string spaced = body(R"( "You are terse." )", k_messages);
        // Re-space every structural character of the body.
        std::string loose;
        bool in_string = false;
        for (std::size_t i = 0; i < spaced.size(); ++i) {
            const char c = spaced[i];
            loose.push_back(c);
            if (c == '"' && (i == 0 || spaced[i - 1] != '\\')) {
                in_string = !in_string;
            }
            if (!in_string && (c == ':' || c == ',' || c == '{' || c == '[')) {
                loose += " \t ";
            }
        }
        const auto relaxed = request_of(loose);
        CHECK(chains(compact) == chains(relaxed));
    }

    TEST_CASE("key order inside a tool_use input changes the chain from that block on")
    {
        std::string swapped = k_messages;
        const std::string from = R"({"path":"a.txt","limit":10})";
        swapped.replace(swapped.find(from), from.size(), R"({"limit":10,"path":"a.txt"})");
        const auto a = request_of(body(R"("S")", k_messages));
        const auto b = request_of(body(R"("S")", swapped));
        REQUIRE(a.segments.size() == b.segments.size());
        // tools[0], system, messages[0].content, messages[1].content[0] are shared;
        // messages[1].content[1] (the tool_use) is where they part.
        CHECK(model::shared_prefix(a, b) == 4);
        CHECK(a.segments[4].path.str() == "messages[1].content[1]");
    }

    TEST_CASE("key order inside a tool schema matters too")
    {
        std::string tool = k_tool;
        const std::string from = R"("type":"object","properties")";
        const std::string other = body(R"("S")", k_messages);
        std::string reordered = other;
        reordered.replace(reordered.find(from), from.size(), R"("properties")");
        reordered.replace(reordered.find(R"("required")"), 0, R"("type":"object",)");
        const auto a = request_of(other);
        const auto b = request_of(reordered);
        CHECK(model::shared_prefix(a, b) == 0);
    }

    TEST_CASE("key order of a typed block's own fields does not matter")
    {
        std::string swapped = k_messages;
        const std::string from = R"({"type":"text","text":"Sure."})";
        swapped.replace(swapped.find(from), from.size(), R"({"text":"Sure.","type":"text"})");
        CHECK(chains(request_of(body(R"("S")", k_messages))) ==
              chains(request_of(body(R"("S")", swapped))));
    }

    TEST_CASE(
        "a string system equals the same text as one block; string content equals a text block")
    {
        const auto a = request_of(body(R"("You are terse.")", k_messages));
        const auto b = request_of(body(R"([{"type":"text","text":"You are terse."}])", k_messages));
        CHECK(chains(a) == chains(b));
        CHECK(a.segments[1].path.str() == "system");
        CHECK(b.segments[1].path.str() == "system[0]");

        std::string blocks = k_messages;
        const std::string from = R"("content":"List the files")";
        blocks.replace(blocks.find(from), from.size(),
                       R"("content":[{"type":"text","text":"List the files"}])");
        CHECK(chains(a) == chains(request_of(body(R"("You are terse.")", blocks))));
    }

    TEST_CASE("string escapes are normalised: \\u00e9 equals é")
    {
        const auto a = request_of(body(R"("caf\u00e9 \/ ok")", k_messages));
        const auto b = request_of(body("\"caf\xC3\xA9 / ok\"", k_messages));
        CHECK(chains(a) == chains(b));
    }

    TEST_CASE("moving a cache_control marker does not change the chain")
    {
        const auto plain = request_of(body(R"([{"type":"text","text":"S"}])", k_messages));
        const auto marked = request_of(
            body(R"([{"type":"text","text":"S","cache_control":{"type":"ephemeral","ttl":"1h"}}])",
                 k_messages));
        CHECK(chains(plain) == chains(marked));
        REQUIRE(marked.segments[1].cache_control);
        CHECK(marked.segments[1].cache_control->ttl == model::Ttl::one_hour);
    }

    TEST_CASE("a parameter enters the chain at the level it invalidates")
    {
        const auto base = request_of(body(R"("S")", k_messages));
        // tool_choice invalidates messages only: tools and system stay shared.
        const auto choice =
            request_of(body(R"("S")", k_messages, R"(,"tool_choice":{"type":"any"})"));
        CHECK(model::shared_prefix(base, choice) == 2);
        // speed invalidates system and messages.
        const auto fast = request_of(body(R"("S")", k_messages, R"(,"speed":"fast")"));
        CHECK(model::shared_prefix(base, fast) == 1);
        // A different model shares nothing.
        std::string other = body(R"("S")", k_messages);
        other.replace(other.find("claude-sonnet-4-5"), 17, "claude-opus-4-5");
        CHECK(model::shared_prefix(base, request_of(other)) == 0);
        // max_tokens and temperature do not reach the cache.
        const auto warm = request_of(body(R"("S")", k_messages, R"(,"temperature":0.2)"));
        CHECK(chains(base) == chains(warm));
    }

    TEST_CASE("an image anywhere changes the messages level only")
    {
        const auto base = request_of(body(R"("S")", k_messages));
        std::string with_image = k_messages;
        const std::string from = R"({"role":"user","content":"List the files"})";
        with_image.replace(
            with_image.find(from), from.size(),
            R"({"role":"user","content":[{"type":"text","text":"List the files"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}}]})");
        const auto img = request_of(body(R"("S")", with_image));
        CHECK(model::shared_prefix(base, img) == 2);
        CHECK(img.param("images")->value == "yes");
        CHECK(img.segments[3].kind == model::SegmentKind::image);
    }

    TEST_CASE("append-only growth keeps the whole earlier chain")
    {
        const auto shorter = request_of(body(R"("S")", R"([{"role":"user","content":"hi"}])"));
        const auto longer = request_of(body(
            R"("S")",
            R"([{"role":"user","content":"hi"},{"role":"assistant","content":"hello"},{"role":"user","content":"more"}])"));
        CHECK(model::shared_prefix(shorter, longer) == shorter.segments.size());
    }

    TEST_CASE("the same text under another role or message boundary is another prefix")
    {
        const auto one = request_of(body(
            R"("S")",
            R"([{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}])"));
        const auto two = request_of(body(
            R"("S")", R"([{"role":"user","content":"a"},{"role":"assistant","content":"b"}])"));
        CHECK(model::shared_prefix(one, two) == 3);
        CHECK(one.segments[3].chain != two.segments[3].chain);
    }

    TEST_CASE(
        "lookback positions: a run of tool_use blocks, or of tool_result blocks, is one position")
    {
        const auto r = request_of(body(R"("S")",
                                       R"([{"role":"user","content":"go"},
                {"role":"assistant","content":[{"type":"text","text":"Running three tools."},
                  {"type":"tool_use","id":"t1","name":"read_file","input":{"path":"a"}},
                  {"type":"tool_use","id":"t2","name":"read_file","input":{"path":"b"}},
                  {"type":"tool_use","id":"t3","name":"read_file","input":{"path":"c"}}]},
                {"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"A"},
                  {"type":"tool_result","tool_use_id":"t2","content":"B"},
                  {"type":"tool_result","tool_use_id":"t3","content":"C"},
                  {"type":"text","text":"continue"}]}])"));
        std::vector<std::uint32_t> positions;
        for (const auto& s : r.segments) {
            positions.push_back(s.lookback_position);
        }
        // tools[0], system, user text, assistant text, 3 x tool_use, 3 x tool_result, text
        CHECK(positions == std::vector<std::uint32_t>{1, 2, 3, 4, 5, 5, 5, 6, 6, 6, 7});

        auto copy = r;
        model::assign_lookback_positions(copy, false);
        CHECK(copy.segments.back().lookback_position == 11);
    }

    TEST_CASE("chain_root depends on provider and model only")
    {
        auto a = request_of(body(R"("S")", k_messages));
        auto b = a;
        b.segments.clear();
        CHECK(model::chain_root(a) == model::chain_root(b));
        b.model = "claude-opus-4-5";
        CHECK(model::chain_root(a) != model::chain_root(b));
    }
}
