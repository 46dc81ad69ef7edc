#include "live/probe_body.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>

namespace cachewise::live {

namespace {

std::string_view
trim(std::string_view s)
{
    while (!s.empty() && s.front() == ' ') {
        s.remove_prefix(1);
    }
    while (!s.empty() && s.back() == ' ') {
        s.remove_suffix(1);
    }
    return s;
}

std::string
json_string_content(const std::string& value)
{
    const std::string quoted = nlohmann::json(value).dump();
    return quoted.substr(1, quoted.size() - 2);
}

} // namespace

Expected<RenderedTemplate>
render_template(const std::string& text, const std::map<std::string, std::string>& vars)
{
    RenderedTemplate out;
    std::set<std::string> used;
    std::size_t at = 0;
    while (at < text.size()) {
        const auto open = text.find("{{", at);
        const auto close = open == std::string::npos ? open : text.find("}}", open + 2);
        if (close == std::string::npos) {
            out.text.append(text, at);
            break;
        }
        out.text.append(text, at, open - at);
        const std::string name(trim(std::string_view(text).substr(open + 2, close - open - 2)));
        if (const auto it = vars.find(name); it != vars.end()) {
            out.text += json_string_content(it->second);
            used.insert(name);
        } else {
            out.text.append(text, open, close + 2 - open);
            if (std::find(out.unfilled.begin(), out.unfilled.end(), name) == out.unfilled.end()) {
                out.unfilled.push_back(name);
            }
        }
        at = close + 2;
    }
    for (const auto& [name, value] : vars) {
        if (used.count(name) == 0) {
            return unexpected(
                fmt::format("--var {}: the template has no {{{{{}}}}} placeholder", name, name));
        }
    }
    return out;
}

Expected<std::string>
prepare_body(const std::string& json, model::ApiFormat api, const BodyEdits& edits,
             const std::string& source)
{
    auto body = nlohmann::ordered_json::parse(json, nullptr, false);
    if (body.is_discarded() || !body.is_object()) {
        return unexpected(fmt::format("{}: not a JSON object (expected one request body)", source));
    }
    // Streamed, so that the first token can be timed; usage comes in the
    // stream (OpenAI Chat only when asked for).
    body["stream"] = true;
    body.erase("stream_options");
    if (api == model::ApiFormat::openai_chat) {
        body["stream_options"] = {{"include_usage", true}};
    }
    if (!edits.keep_max_tokens) {
        if (api == model::ApiFormat::anthropic) {
            body["max_tokens"] = 1;
        } else if (api == model::ApiFormat::openai_responses) {
            body["max_output_tokens"] = 16;
        } else if (body.contains("max_tokens")) {
            body["max_tokens"] = 1;
        } else {
            body["max_completion_tokens"] = 1;
        }
    }
    if (!edits.previous_message_id.empty() && api == model::ApiFormat::anthropic) {
        body["diagnostics"] = {{"previous_message_id", edits.previous_message_id}};
    }
    return body.dump();
}

} // namespace cachewise::live
