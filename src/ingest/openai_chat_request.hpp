#pragma once

#include "ingest/body_parser.hpp"

#include <string>

namespace cachewise::ingest {

// The cache settings Chat Completions and Responses bodies share:
// prompt_cache_key, prompt_cache_retention, prompt_cache_options {mode, ttl},
// and user / safety_identifier (the stream when the log names none).
// Returns false for any other member. Throws FieldError.
bool openai_cache_member(std::string_view key, od::value value, model::Request& request);

// Builds the request model from an OpenAI Chat Completions body, as OpenAI,
// DeepSeek, vLLM, SGLang and gateways (LiteLLM, OpenRouter) take it.
//
// Segments: each tool definition; each content part of each message (a
// string content is one text block); each entry of an assistant's
// tool_calls. A leading run of system/developer messages is the system
// level, later ones stay in the conversation. A message's name and
// tool_call_id are part of its first block's identity; DeepSeek's
// reasoning_content is not, because DeepSeek's template drops it from the
// prompt. Gateways pass Anthropic's cache_control through on parts, tools
// and messages; GPT-5.6 marks breakpoints with prompt_cache_breakpoint.
class OpenAIChatParser : public BodyParser {
public:
    OpenAIChatParser(const ruleset::Rules& rules, const model::TokenEstimator& estimator);

private:
    void read_continuation(od::value message, std::vector<model::Segment>& out) override;
    void reset_body() override;
    void finish_body() override;
    bool body_member(std::string_view key, od::value value) override;
    void conversation(od::value value) override;
    // Appends the segments of one message; `system_run` is true while the
    // leading system/developer messages last.
    void message(od::value value, int index, bool& system_run, std::vector<model::Segment>& out);
    void content_segments(od::value value, int index, std::vector<model::Segment>& out);
    void tool_call_segments(od::value value, int index, std::vector<model::Segment>& out);
    void seal_message(std::vector<model::Segment>& out, std::size_t first,
                      const std::string& header, const std::optional<model::CacheControl>& marker);

    Param m_response_format;
    Param m_reasoning_effort;
    int m_message_count = 0;
};

} // namespace cachewise::ingest
