#include "ingest/block_kinds.hpp"

#include <array>
#include <optional>

namespace cachewise::ingest {

namespace {

using V = BlockVocabulary;
using K = model::SegmentKind;

struct KindName {
    V vocabulary;
    std::string_view type;
    K kind;
};

// Types each API documents for its content. A type that starts with `*`
// names every longer type ending in the rest (a family that grows with the
// provider's tools: web_search_tool_result, computer_call_output, ...); an
// exact type wins over a family, and the first family that matches wins.
constexpr std::array k_kinds = {
    KindName{V::anthropic_block, "text", K::text},
    KindName{V::anthropic_block, "tool_use", K::tool_use},
    KindName{V::anthropic_block, "tool_result", K::tool_result},
    KindName{V::anthropic_block, "image", K::image},
    KindName{V::anthropic_block, "document", K::document},
    KindName{V::anthropic_block, "thinking", K::thinking},
    KindName{V::anthropic_block, "redacted_thinking", K::redacted_thinking},
    KindName{V::anthropic_block, "server_tool_use", K::server_tool_use},
    KindName{V::anthropic_block, "mcp_tool_use", K::server_tool_use},
    KindName{V::anthropic_block, "search_result", K::search_result},
    KindName{V::anthropic_block, "*_tool_result", K::server_tool_result},
    KindName{V::anthropic_block, "container_upload", K::other},
    KindName{V::anthropic_block, "tool_reference", K::other},
    KindName{V::openai_chat_part, "text", K::text},
    KindName{V::openai_chat_part, "input_text", K::text},
    KindName{V::openai_chat_part, "output_text", K::text},
    KindName{V::openai_chat_part, "refusal", K::text},
    KindName{V::openai_chat_part, "image_url", K::image},
    KindName{V::openai_chat_part, "input_image", K::image},
    KindName{V::openai_chat_part, "file", K::document},
    KindName{V::openai_chat_part, "input_file", K::document},
    KindName{V::openai_chat_part, "input_audio", K::other},
    KindName{V::openai_responses_item, "function_call", K::tool_use},
    KindName{V::openai_responses_item, "custom_tool_call", K::tool_use},
    KindName{V::openai_responses_item, "local_shell_call", K::tool_use},
    KindName{V::openai_responses_item, "computer_call", K::tool_use},
    KindName{V::openai_responses_item, "mcp_call", K::tool_use},
    KindName{V::openai_responses_item, "reasoning", K::thinking},
    KindName{V::openai_responses_item, "item_reference", K::other},
    KindName{V::openai_responses_item, "mcp_list_tools", K::other},
    KindName{V::openai_responses_item, "mcp_approval_request", K::other},
    KindName{V::openai_responses_item, "mcp_approval_response", K::other},
    KindName{V::openai_responses_item, "*_output", K::tool_result},
    KindName{V::openai_responses_item, "*_call", K::server_tool_use},
    KindName{V::openai_responses_part, "input_text", K::text},
    KindName{V::openai_responses_part, "output_text", K::text},
    KindName{V::openai_responses_part, "text", K::text},
    KindName{V::openai_responses_part, "refusal", K::text},
    KindName{V::openai_responses_part, "input_image", K::image},
    KindName{V::openai_responses_part, "input_file", K::document},
    KindName{V::gemini_part, "text", K::text},
    KindName{V::gemini_part, "functionCall", K::tool_use},
    KindName{V::gemini_part, "function_call", K::tool_use},
    KindName{V::gemini_part, "executableCode", K::tool_use},
    KindName{V::gemini_part, "functionResponse", K::tool_result},
    KindName{V::gemini_part, "function_response", K::tool_result},
    KindName{V::gemini_part, "codeExecutionResult", K::tool_result},
    KindName{V::gemini_part, "inlineData", K::document},
    KindName{V::gemini_part, "inline_data", K::document},
    KindName{V::gemini_part, "fileData", K::document},
    KindName{V::gemini_part, "file_data", K::document},
    KindName{V::bedrock_block, "text", K::text},
    KindName{V::bedrock_block, "toolUse", K::tool_use},
    KindName{V::bedrock_block, "toolResult", K::tool_result},
    KindName{V::bedrock_block, "image", K::image},
    KindName{V::bedrock_block, "document", K::document},
    KindName{V::bedrock_block, "reasoningContent", K::thinking},
    KindName{V::bedrock_block, "video", K::other},
    KindName{V::bedrock_block, "guardContent", K::other},
    KindName{V::bedrock_block, "citationsContent", K::other},
    KindName{V::bedrock_block, "searchResult", K::other},
};

// The kind `type` names for `vocabulary`, or nothing when the table does
// not name it. One pass: an exact type returns at once, the first family is
// kept.
std::optional<K>
find_kind(BlockVocabulary vocabulary, std::string_view type)
{
    std::optional<K> family;
    for (const auto& entry : k_kinds) {
        if (entry.vocabulary != vocabulary) {
            continue;
        }
        if (entry.type == type) {
            return entry.kind;
        }
        const std::string_view ending = entry.type.substr(1);
        if (!family && entry.type.starts_with('*') && type.size() > ending.size() &&
            type.ends_with(ending)) {
            family = entry.kind;
        }
    }
    return family;
}

} // namespace

model::SegmentKind
kind_named(BlockVocabulary vocabulary, std::string_view type)
{
    return find_kind(vocabulary, type).value_or(K::other);
}

bool
is_known_type(BlockVocabulary vocabulary, std::string_view type)
{
    return find_kind(vocabulary, type).has_value();
}

std::string
known_types(BlockVocabulary vocabulary)
{
    std::string out;
    for (const auto& entry : k_kinds) {
        if (entry.vocabulary == vocabulary) {
            out += (out.empty() ? "" : ", ") + std::string(entry.type);
        }
    }
    return out;
}

std::string_view
object_name(BlockVocabulary vocabulary)
{
    switch (vocabulary) {
    case V::anthropic_block:
        return "a Messages API content block";
    case V::openai_chat_part:
        return "a Chat Completions content part";
    case V::openai_responses_item:
        return "a Responses input item";
    case V::openai_responses_part:
        return "a Responses content part";
    case V::gemini_part:
        return "a Gemini part";
    case V::bedrock_block:
        return "a Converse content block";
    }
    return "a content block";
}

BlockVocabulary
vocabulary_of(model::ApiFormat format, const model::SegmentPath& path)
{
    switch (format) {
    case model::ApiFormat::anthropic:
        return V::anthropic_block;
    case model::ApiFormat::openai_chat:
        return V::openai_chat_part;
    case model::ApiFormat::openai_responses:
        return path.part == model::PathPart::none ? V::openai_responses_item
                                                  : V::openai_responses_part;
    case model::ApiFormat::gemini:
        return V::gemini_part;
    case model::ApiFormat::bedrock_converse:
        return V::bedrock_block;
    }
    return V::anthropic_block;
}

} // namespace cachewise::ingest
