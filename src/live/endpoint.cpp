#include "live/endpoint.hpp"

#include "util/error.hpp"
#include "util/find_by.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace cachewise::live {

namespace {

std::string
api_path(const std::string& base, std::string_view tail)
{
    // A base that already ends in /v1 (the OpenAI SDK's habit) gets no second one.
    const bool has_v1 = base.size() >= 3 && base.compare(base.size() - 3, 3, "/v1") == 0;
    return has_v1 ? base + std::string(tail.substr(3)) : base + std::string(tail);
}

// Where each API takes a request and counts its tokens; any other format
// speaks Chat Completions, which has no token count.
struct ApiPaths {
    model::ApiFormat api;
    std::string_view create;
    std::string_view count_tokens;
};
constexpr ApiPaths k_api_paths[] = {
    {model::ApiFormat::anthropic, "/v1/messages", "/v1/messages/count_tokens"},
    {model::ApiFormat::openai_responses, "/v1/responses", "/v1/responses/input_tokens"},
};
constexpr std::string_view k_chat_completions = "/v1/chat/completions";

const ApiPaths*
paths_of(model::ApiFormat api)
{
    return util::find_by(k_api_paths, &ApiPaths::api, api);
}

} // namespace

std::string
Endpoint::create_url() const
{
    const ApiPaths* paths = paths_of(api);
    return api_path(base_url, paths != nullptr ? paths->create : k_chat_completions);
}

std::string
Endpoint::count_tokens_url() const
{
    const ApiPaths* paths = paths_of(api);
    return paths != nullptr ? api_path(base_url, paths->count_tokens) : std::string();
}

std::vector<std::pair<std::string, std::string>>
Endpoint::headers(const std::optional<ApiKey>& key, bool masked) const
{
    std::vector<std::pair<std::string, std::string>> out;
    out.emplace_back("content-type", "application/json");
    const std::string value =
        !key ? std::string() : (masked ? fmt::format("<{}, masked>", key->origin) : key->value);
    if (api == model::ApiFormat::anthropic) {
        out.emplace_back("anthropic-version", "2023-06-01");
        if (key) {
            out.emplace_back("x-api-key", value);
        }
    } else if (key) {
        out.emplace_back("authorization", masked ? value : "Bearer " + value);
    }
    return out;
}

Endpoint
endpoint_for(model::ApiFormat api, const std::string& provider,
             const std::optional<std::string>& base_url)
{
    Endpoint e;
    e.api = api;
    e.provider = provider;
    if (api == model::ApiFormat::anthropic) {
        e.provider = "anthropic";
        e.base_url = "https://api.anthropic.com";
        e.key_variable = "ANTHROPIC_API_KEY";
    } else if (api == model::ApiFormat::openai_chat || api == model::ApiFormat::openai_responses) {
        const bool deepseek = provider == "deepseek" && api == model::ApiFormat::openai_chat;
        e.provider = deepseek ? "deepseek" : "openai";
        e.base_url = deepseek ? "https://api.deepseek.com" : "https://api.openai.com";
        e.key_variable = deepseek ? "DEEPSEEK_API_KEY" : "OPENAI_API_KEY";
    } else {
        throw Error(fmt::format("probe sends Anthropic Messages, OpenAI Chat Completions and "
                                "Responses bodies; this one is {}",
                                model::to_string(api)));
    }
    if (base_url) {
        std::string base = *base_url;
        while (!base.empty() && base.back() == '/') {
            base.pop_back();
        }
        if (base.rfind("http://", 0) != 0 && base.rfind("https://", 0) != 0) {
            throw Error(
                fmt::format("--base-url \"{}\": expected an http:// or https:// URL", *base_url));
        }
        e.base_url = base;
    }
    return e;
}

std::string
provider_error_message(const std::string& body)
{
    const auto j = nlohmann::json::parse(body, nullptr, false);
    if (!j.is_discarded() && j.is_object() && j.contains("error")) {
        const auto& e = j["error"];
        if (e.is_string()) {
            return e.get<std::string>();
        }
        if (e.is_object()) {
            const auto text = [&](const char* name) {
                return e.contains(name) && e[name].is_string() ? e[name].get<std::string>()
                                                               : std::string();
            };
            const std::string type = text("type");
            const std::string message = text("message");
            if (!type.empty() && !message.empty()) {
                return fmt::format("{}: {}", type, message);
            }
            if (!message.empty() || !type.empty()) {
                return message.empty() ? type : message;
            }
        }
    }
    std::string start = body.substr(0, 200);
    for (char& c : start) {
        if (c == '\n' || c == '\r') {
            c = ' ';
        }
    }
    return start.empty() ? "(empty body)" : start + (body.size() > 200 ? "…" : "");
}

} // namespace cachewise::live
