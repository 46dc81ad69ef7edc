#pragma once

#include "model/request.hpp"
#include "model/segment.hpp"

#include <string>
#include <string_view>

namespace cachewise::ingest {

// The lists of block, part and item types the readers know, one per API
// object that carries content.
enum class BlockVocabulary {
    anthropic_block,       // Messages: a content or system block
    openai_chat_part,      // Chat Completions: a message's content part
    openai_responses_item, // Responses: an input item
    openai_responses_part, // Responses: a message item's content part
    gemini_part,           // generateContent: a part
    bedrock_block,         // Converse: a content block (its one member's name)
};

// The kind of segment a `type` of `vocabulary` makes, or `other` for a type
// the table does not name (exactly or by its ending). One table for every API, so that what a
// provider adds is added in one place.
model::SegmentKind kind_named(BlockVocabulary vocabulary, std::string_view type);

// Whether the table names `type` for `vocabulary` (exactly or by its
// ending); an unnamed type may be a typo the API rejects or one it added.
bool is_known_type(BlockVocabulary vocabulary, std::string_view type);

// The types the table names for `vocabulary`, for a message: "text,
// tool_use, ..., *_tool_result".
std::string known_types(BlockVocabulary vocabulary);

// The API object a vocabulary lists the types of ("a Messages API content
// block").
std::string_view object_name(BlockVocabulary vocabulary);

// The vocabulary a segment of a `format` body at `path` was read with.
BlockVocabulary vocabulary_of(model::ApiFormat format, const model::SegmentPath& path);

} // namespace cachewise::ingest
