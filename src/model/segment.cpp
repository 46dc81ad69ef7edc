#include "model/segment.hpp"

#include "model/request.hpp"
#include "util/enum_names.hpp"

#include <fmt/format.h>

namespace cachewise::model {

namespace {

constexpr auto k_kind_names =
    util::names_of<SegmentKind>({"tool", "text", "image", "document", "tool_use", "tool_result",
                                 "thinking", "redacted_thinking", "server_tool_use",
                                 "server_tool_result", "search_result", "other", "unlogged"});
constexpr auto k_role_names = util::names_of<Role>({"", "user", "assistant", "system"});
constexpr auto k_source_names =
    util::names_of<TokenSource>({"estimated", "calibrated", "inferred", "exact"});
// The member a path starts from; Anthropic's by-level paths are written
// apart (SegmentPath::str), but a tools path of theirs reads "tools".
constexpr auto k_root_names =
    util::names_of<PathRoot>({"tools", "tools", "messages", "instructions", "input", "contents",
                              "systemInstruction", "toolConfig.tools", "system"});
constexpr auto k_part_names =
    util::names_of<PathPart>({".content", ".tool_calls", ".parts", ".functionDeclarations", ""});
constexpr auto k_format_names = util::names_of<ApiFormat>(
    {"anthropic", "openai-chat", "openai-responses", "gemini", "bedrock-converse"});

} // namespace

std::string_view
to_string(SegmentKind kind)
{
    return k_kind_names[kind];
}

std::string_view
to_string(Role role)
{
    return k_role_names[role];
}

std::string_view
to_string(TokenSource source)
{
    return k_source_names[source];
}

std::string
SegmentPath::str() const
{
    if (cached) {
        SegmentPath inner = *this;
        inner.cached = false;
        return (root == PathRoot::input ? "previous_response:" : "cachedContent:") + inner.str();
    }
    if (root == PathRoot::by_level) {
        switch (level) {
        case Level::tools:
            return index < 0 ? std::string("(tools+system, not logged)")
                             : fmt::format("tools[{}]", index);
        case Level::system:
            return whole_content ? std::string("system") : fmt::format("system[{}]", index);
        case Level::messages:
            return whole_content ? fmt::format("messages[{}].content", message)
                                 : fmt::format("messages[{}].content[{}]", message, index);
        }
        return "?";
    }
    std::string out(k_root_names[root]);
    if (message >= 0) {
        out += fmt::format("[{}]", message);
    }
    out += k_part_names[part];
    if (!whole_content) {
        out += fmt::format("[{}]", index);
    }
    return out;
}

std::string_view
to_string(Ttl ttl)
{
    return ttl == Ttl::one_hour ? "1h" : "5m";
}

std::string_view
to_string(ApiFormat format)
{
    return k_format_names[format];
}

} // namespace cachewise::model
