#pragma once

// Requests built block by block with exact token counts, for the
// hand-computed simulation and placement fixtures.

#include "model/chain.hpp"
#include "model/request.hpp"

#include <fmt/format.h>

#include <optional>
#include <string>
#include <vector>

namespace cachewise::test {

struct Block {
    Block(std::string t, std::int64_t n, model::SegmentKind k = model::SegmentKind::text,
          std::optional<model::Ttl> b = std::nullopt, model::Level l = model::Level::messages)
        : text(std::move(t)), tokens(n), kind(k), breakpoint(b), level(l)
    {}
    std::string text;
    std::int64_t tokens;
    model::SegmentKind kind;
    std::optional<model::Ttl> breakpoint;
    model::Level level;
};

inline Block
tool(std::string text, std::int64_t tokens, std::optional<model::Ttl> bp = std::nullopt)
{
    return Block(std::move(text), tokens, model::SegmentKind::tool, bp, model::Level::tools);
}

inline Block
system(std::string text, std::int64_t tokens, std::optional<model::Ttl> bp = std::nullopt)
{
    return Block(std::move(text), tokens, model::SegmentKind::text, bp, model::Level::system);
}

// A request of the given blocks, started at `second` with its first token 2 s
// later. A first block without an explicit level is the system prompt; every
// later message-level block is a user message of its own.
inline model::Request
make(const std::vector<Block>& blocks, double second, std::string model = "claude-sonnet-4-5")
{
    model::Request r;
    r.id = fmt::format("t{}", second);
    r.stream = "s";
    r.model = std::move(model);
    r.started_at = Timestamp{static_cast<std::int64_t>(second * 1e6)};
    r.first_token_at = Timestamp{static_cast<std::int64_t>((second + 2) * 1e6)};
    int message = 0;
    int tools = 0;
    int systems = 0;
    for (std::size_t i = 0; i < blocks.size(); ++i) {
        model::Segment s;
        s.kind = blocks[i].kind;
        model::Level level = blocks[i].level;
        if (i == 0 && level == model::Level::messages) {
            level = model::Level::system;
        }
        if (level == model::Level::tools) {
            s.path = model::SegmentPath{level, -1, tools++};
        } else if (level == model::Level::system) {
            s.path = model::SegmentPath{level, -1, systems++};
        } else {
            s.path = model::SegmentPath{level, message++, 0};
            s.role = model::Role::user;
            s.message_start = true;
        }
        s.content = hash_bytes(blocks[i].text);
        s.tokens = blocks[i].tokens;
        s.estimate = static_cast<float>(blocks[i].tokens);
        if (blocks[i].breakpoint) {
            s.cache_control = model::CacheControl{*blocks[i].breakpoint};
        }
        r.segments.push_back(s);
    }
    std::int64_t cumulative = 0;
    for (auto& s : r.segments) {
        cumulative += s.tokens;
        s.cumulative_tokens = cumulative;
    }
    r.params.push_back(model::Param{"model", r.model, true, model::Level::tools});
    model::assign_lookback_positions(r, true);
    model::compute_chain(r);
    return r;
}

} // namespace cachewise::test
