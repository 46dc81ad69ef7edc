#pragma once

#include "ingest/body_parser.hpp"
#include "model/request.hpp"
#include "model/text_store.hpp"
#include "model/tokens.hpp"
#include "ruleset/rules.hpp"

#include <simdjson.h>

#include <string_view>
#include <unordered_map>
#include <vector>

namespace cachewise::ingest {

// Builds the request model from an Anthropic Messages API request body (also
// Bedrock InvokeModel bodies, which have the same shape).
class AnthropicRequestParser : public BodyParser {
public:
    AnthropicRequestParser(const ruleset::Rules& rules, const model::TokenEstimator& estimator);

    // Appends the segments of one message's `content` (a string or an array of
    // blocks); used for request bodies and for Claude Code transcripts.
    // `message` is the message index; the first block gets message_start.
    void message_content(od::value content, model::Role role, int message,
                         std::vector<model::Segment>& out, bool& images_seen);

private:
    void reset_body() override;
    void finish_body() override;
    void on_tool(const RenderStats& stats) override;
    void system(od::value value);
    bool body_member(std::string_view key, od::value value) override;
    void conversation(od::value value) override;

    bool m_web_search = false;
    bool m_citations = false;
    Param m_thinking;
    Param m_speed;
    Param m_effort;
};

} // namespace cachewise::ingest
