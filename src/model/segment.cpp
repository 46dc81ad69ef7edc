#include "model/segment.hpp"

#include "model/request.hpp"

#include <fmt/format.h>

namespace cachewise::model {

std::string_view
to_string(SegmentKind kind)
{
    switch (kind) {
    case SegmentKind::tool:
        return "tool";
    case SegmentKind::text:
        return "text";
    case SegmentKind::image:
        return "image";
    case SegmentKind::document:
        return "document";
    case SegmentKind::tool_use:
        return "tool_use";
    case SegmentKind::tool_result:
        return "tool_result";
    case SegmentKind::thinking:
        return "thinking";
    case SegmentKind::redacted_thinking:
        return "redacted_thinking";
    case SegmentKind::server_tool_use:
        return "server_tool_use";
    case SegmentKind::server_tool_result:
        return "server_tool_result";
    case SegmentKind::search_result:
        return "search_result";
    case SegmentKind::other:
        return "other";
    case SegmentKind::unlogged:
        return "unlogged";
    }
    return "?";
}

std::string_view
to_string(Role role)
{
    switch (role) {
    case Role::none:
        return "";
    case Role::user:
        return "user";
    case Role::assistant:
        return "assistant";
    case Role::system:
        return "system";
    }
    return "?";
}

std::string_view
to_string(Ttl ttl)
{
    return ttl == Ttl::one_hour ? "1h" : "5m";
}

std::string_view
to_string(TokenSource source)
{
    switch (source) {
    case TokenSource::estimated:
        return "estimated";
    case TokenSource::calibrated:
        return "calibrated";
    case TokenSource::inferred:
        return "inferred";
    case TokenSource::exact:
        return "exact";
    }
    return "?";
}

std::string
SegmentPath::str() const
{
    if (cached) {
        SegmentPath inner = *this;
        inner.cached = false;
        return "cachedContent:" + inner.str();
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
    std::string out;
    switch (root) {
    case PathRoot::by_level:
    case PathRoot::tools:
        out = "tools";
        break;
    case PathRoot::messages:
        out = "messages";
        break;
    case PathRoot::instructions:
        out = "instructions";
        break;
    case PathRoot::input:
        out = "input";
        break;
    case PathRoot::contents:
        out = "contents";
        break;
    case PathRoot::system_instruction:
        out = "systemInstruction";
        break;
    case PathRoot::tool_config:
        out = "toolConfig.tools";
        break;
    case PathRoot::system:
        out = "system";
        break;
    }
    if (message >= 0) {
        out += fmt::format("[{}]", message);
    }
    switch (part) {
    case PathPart::content:
        out += ".content";
        break;
    case PathPart::tool_calls:
        out += ".tool_calls";
        break;
    case PathPart::parts:
        out += ".parts";
        break;
    case PathPart::function_declarations:
        out += ".functionDeclarations";
        break;
    case PathPart::none:
        break;
    }
    if (!whole_content) {
        out += fmt::format("[{}]", index);
    }
    return out;
}

std::string_view
to_string(ApiFormat format)
{
    switch (format) {
    case ApiFormat::anthropic:
        return "anthropic";
    case ApiFormat::openai_chat:
        return "openai-chat";
    case ApiFormat::openai_responses:
        return "openai-responses";
    case ApiFormat::gemini:
        return "gemini";
    case ApiFormat::bedrock_converse:
        return "bedrock-converse";
    }
    return "?";
}

} // namespace cachewise::model
