#pragma once

#include "ingest/body_parser.hpp"

#include <string>

namespace cachewise::ingest {

// Builds the request model from an Amazon Bedrock Converse body.
//
// Segments: each tool of toolConfig.tools, each system block, each content
// block of each message. A {"cachePoint": {...}} entry is not a segment: it
// marks the prefix ending at the block before it (rule "cachePoint" of the
// Bedrock prompt-caching guide), in the order tools, system, messages.
class BedrockConverseParser : public BodyParser {
public:
    BedrockConverseParser(const ruleset::Rules& rules, const model::TokenEstimator& estimator);

private:
    void reset_body() override;
    void finish_body() override;
    // Appends blocks (or marks the previous one) of a system, content or tools list.
    void blocks(od::value value, model::Level level, model::PathRoot root, int message,
                model::Role role);
    bool body_member(std::string_view key, od::value value) override;
    void conversation(od::value value) override;
    void tool_config(od::value value);
    void mark(model::Level level, const model::CacheControl& cc);

    // A cachePoint before any block of its level marks the end of an earlier level.
    std::vector<std::pair<model::Level, model::CacheControl>> m_leading_points;
};

} // namespace cachewise::ingest
