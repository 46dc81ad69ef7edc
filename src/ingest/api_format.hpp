#pragma once

#include "model/request.hpp"

#include <simdjson.h>

#include <string>
#include <string_view>

namespace cachewise::ingest {

namespace od = simdjson::ondemand;

// Evidence, member by member, of the API a request body was written for.
// Decisive members (Gemini `contents`, Responses `input`, Bedrock
// `toolConfig`) settle it; otherwise Anthropic-only and OpenAI-only members
// are counted, and a body with nothing but model and messages goes by its
// model name (claude → Anthropic, anything else → Chat Completions).
class ApiFormatDetector {
public:
    // Looks at one top-level member of a body; may peek into messages and tools.
    void member(std::string_view key, od::value value);

    [[nodiscard]] model::ApiFormat decide() const;

    // Evidence from a member's name alone (the parse sees names for free).
    void key(std::string_view key);
    // Whether the names seen say the body is not written for `format`.
    [[nodiscard]] bool contradicts(model::ApiFormat format) const;
    // The same, or, for a kept Anthropic format when no name tells Messages
    // from Chat Completions, a body whose `model` is of a family served
    // through Chat Completions (format_of_model).
    [[nodiscard]] bool contradicts(model::ApiFormat format, std::string_view model) const;

private:
    // Counts a name that only some APIs use; false for the others.
    bool classify(std::string_view key);
    void peek_messages(od::value value);
    void peek_tools(od::value value);
    void peek_block(od::value value);

    int m_anthropic = 0;
    int m_openai = 0;
    int m_responses = 0;
    int m_gemini = 0;
    int m_bedrock = 0;
    bool m_untyped = false; // a content block without "type"
    // A top-level "system": Messages (or Converse), never Chat Completions,
    // whatever roles its messages carry (a mid-conversation system message).
    bool m_top_system = false;
    bool m_not_a_body = false; // an OpenTelemetry or trajectory member
    std::string m_model;
};

// The API a body of nothing but model and messages is written for: Chat
// Completions for a model family served through it, else Anthropic.
model::ApiFormat format_of_model(std::string_view model);

} // namespace cachewise::ingest
