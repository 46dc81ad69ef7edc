#include "ingest/block_kinds.hpp"

#include <doctest/doctest.h>

using cachewise::ingest::BlockVocabulary;
using cachewise::ingest::kind_named;
using cachewise::model::SegmentKind;

TEST_SUITE("ingest::block_kinds")
{
    TEST_CASE("a type means what its own API says")
    {
        CHECK(kind_named(BlockVocabulary::anthropic_block, "tool_use") == SegmentKind::tool_use);
        CHECK(kind_named(BlockVocabulary::bedrock_block, "toolUse") == SegmentKind::tool_use);
        CHECK(kind_named(BlockVocabulary::gemini_part, "functionResponse") ==
              SegmentKind::tool_result);
        CHECK(kind_named(BlockVocabulary::openai_chat_part, "image_url") == SegmentKind::image);
        CHECK(kind_named(BlockVocabulary::openai_responses_part, "input_file") ==
              SegmentKind::document);
        // Another API's name is not this one's: Bedrock has no tool_use block.
        CHECK(kind_named(BlockVocabulary::bedrock_block, "tool_use") == SegmentKind::other);
        CHECK(kind_named(BlockVocabulary::openai_responses_part, "image_url") ==
              SegmentKind::other);
        CHECK(kind_named(BlockVocabulary::gemini_part, "") == SegmentKind::other);
    }

    TEST_CASE("a family by its ending, after the exact types")
    {
        // Anthropic: server tools' results (web_search_tool_result, mcp_tool_result, ...).
        CHECK(kind_named(BlockVocabulary::anthropic_block, "web_search_tool_result") ==
              SegmentKind::server_tool_result);
        CHECK(kind_named(BlockVocabulary::anthropic_block, "tool_result") ==
              SegmentKind::tool_result);
        // Responses: *_output is a tool result, *_call a server tool unless named.
        CHECK(kind_named(BlockVocabulary::openai_responses_item, "computer_call_output") ==
              SegmentKind::tool_result);
        CHECK(kind_named(BlockVocabulary::openai_responses_item, "web_search_call") ==
              SegmentKind::server_tool_use);
        CHECK(kind_named(BlockVocabulary::openai_responses_item, "function_call") ==
              SegmentKind::tool_use);
        // The ending alone is no type; nor is a family of one API another's.
        CHECK(kind_named(BlockVocabulary::openai_responses_item, "_call") == SegmentKind::other);
        CHECK(kind_named(BlockVocabulary::anthropic_block, "_tool_result") == SegmentKind::other);
        CHECK(kind_named(BlockVocabulary::gemini_part, "x_call") == SegmentKind::other);
    }

    TEST_CASE("known types: documented ones read as other content are known, typos are not")
    {
        using cachewise::ingest::is_known_type;
        CHECK(is_known_type(BlockVocabulary::openai_chat_part, "input_audio"));
        CHECK(kind_named(BlockVocabulary::openai_chat_part, "input_audio") == SegmentKind::other);
        CHECK(is_known_type(BlockVocabulary::anthropic_block, "web_fetch_tool_result"));
        CHECK(!is_known_type(BlockVocabulary::anthropic_block, "txt"));
        CHECK(!is_known_type(BlockVocabulary::openai_responses_part, "input_txt"));
        CHECK(cachewise::ingest::known_types(BlockVocabulary::bedrock_block) ==
              "text, toolUse, toolResult, image, document, reasoningContent, video, guardContent, "
              "citationsContent, searchResult");
        CHECK(cachewise::ingest::vocabulary_of(
                  cachewise::model::ApiFormat::openai_responses,
                  {cachewise::model::Level::messages, 0, 0, true, cachewise::model::PathRoot::input,
                   cachewise::model::PathPart::none}) == BlockVocabulary::openai_responses_item);
    }
}
