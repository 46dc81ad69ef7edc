#pragma once

#include "model/request.hpp"
#include "util/expected.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cachewise::live {

// A template with its {{name}} placeholders filled. Values are inserted as
// JSON string content (escaped), since placeholders sit inside strings.
struct RenderedTemplate {
    std::string text;
    std::vector<std::string> unfilled; // placeholders left as written, first seen first
};

// Fills {{name}} (spaces inside the braces allowed) from `vars`. A variable
// the template never uses is an error: it is almost always a typo.
Expected<RenderedTemplate> render_template(const std::string& text,
                                           const std::map<std::string, std::string>& vars);

// How probe changes a body before sending it.
struct BodyEdits {
    bool keep_max_tokens = false;    // else the output is cut to the minimum the API accepts
    std::string previous_message_id; // Anthropic cache diagnostics on a repeat
};

// The body as sent: streamed (OpenAI Chat with include_usage), output
// limited to 1 token (Responses: 16, its minimum) unless kept, and with
// `diagnostics: {previous_message_id}` when asked. Key order is kept.
// `source` names the file in errors.
Expected<std::string> prepare_body(const std::string& json, model::ApiFormat api,
                                   const BodyEdits& edits, const std::string& source);

} // namespace cachewise::live
