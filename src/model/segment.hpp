#pragma once

#include "ruleset/rules.hpp"
#include "util/hash.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace cachewise::model {

using ruleset::Level;

// What a segment is: one tool definition, one system block, or one content
// block of a message. `unlogged` stands for prompt parts a log leaves out
// (Claude Code transcripts hold neither the system prompt nor the tools).
enum class SegmentKind : std::uint8_t {
    tool,
    text,
    image,
    document,
    tool_use,
    tool_result,
    thinking,
    redacted_thinking,
    server_tool_use,
    server_tool_result,
    search_result,
    other,
    unlogged,
};
std::string_view to_string(SegmentKind kind);

enum class Role : std::uint8_t { none, user, assistant, system };
std::string_view to_string(Role role);

enum class Ttl : std::uint8_t { five_minutes, one_hour };
std::string_view to_string(Ttl ttl); // "5m" / "1h"

struct CacheControl {
    Ttl ttl = Ttl::five_minutes;
    friend bool operator==(const CacheControl&, const CacheControl&) = default;
};

// How a token count was obtained. Printers say it; audits weigh it.
enum class TokenSource : std::uint8_t {
    estimated,  // the estimator alone
    calibrated, // estimates scaled so the request sums to its reported usage
    inferred,   // the reported total minus the logged segments
    exact,      // counted with the model's own tokenizer (src/tokenize/)
};
std::string_view to_string(TokenSource source);

// The member names of a path in the request body, when they are not
// Anthropic's (tools / system / messages[m].content).
enum class PathRoot : std::uint8_t {
    by_level,           // Anthropic: the level's own member
    tools,              // tools[i] or tools[t].functionDeclarations[i]
    messages,           // OpenAI chat and Bedrock: messages[m]
    instructions,       // Responses: instructions
    input,              // Responses: input or input[m]
    contents,           // Gemini: contents[m]
    system_instruction, // Gemini: systemInstruction
    tool_config,        // Bedrock: toolConfig.tools[i]
    system,             // Bedrock: system[i]
};
enum class PathPart : std::uint8_t {
    content,               // .content / .content[i]
    tool_calls,            // OpenAI chat: .tool_calls[i]
    parts,                 // Gemini: .parts[i]
    function_declarations, // Gemini tools: .functionDeclarations[i]
    none,                  // the element itself: input[m], tools[i]
};

// Where a segment sits in the request body: tools[2], system[1],
// messages[4].content[0], contents[3].parts[1]. Kept as numbers; rendered
// on output.
struct SegmentPath {
    Level level = Level::messages;
    std::int32_t message = -1;  // the message (or tool entry) holding the block, -1 when none
    std::int32_t index = 0;     // tool, system block or content block index
    bool whole_content = false; // a string `content` (rendered as one text block)
    PathRoot root = PathRoot::by_level;
    PathPart part = PathPart::content;
    // Content the body refers to and does not hold: a Gemini explicit
    // cache's ("cachedContent:…"), or a stored OpenAI response's
    // conversation ("previous_response:input[…]").
    bool cached = false;

    [[nodiscard]] std::string str() const;
    friend bool operator==(const SegmentPath&, const SegmentPath&) = default;
};

struct Segment {
    SegmentPath path;
    SegmentKind kind = SegmentKind::text;
    Role role = Role::none;
    bool message_start = false;        // first block of its message
    bool cache_control_allowed = true; // not on thinking blocks or empty text
    std::optional<CacheControl> cache_control;
    std::uint32_t lookback_position = 0; // 1-based; tool_use/tool_result runs share one

    Hash128 content;         // XXH3-128 of the rendered bytes
    std::uint32_t bytes = 0; // rendered length
    float estimate = 0;      // estimator output before rounding or calibration
    std::int64_t tokens = 0;
    std::int64_t cumulative_tokens = 0; // tokens of the prompt up to and including this one
    TokenSource token_source = TokenSource::estimated;
    Hash128 chain; // identity of the prompt prefix ending here
};

} // namespace cachewise::model
