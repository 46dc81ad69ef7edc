#include "live/endpoint.hpp"

#include "util/error.hpp"
#include "util/find_by.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace cachewise::live {

namespace {

// Where each API takes a request and counts its tokens, under a base URL
// that holds the version ("https://api.openai.com/v1"); any other format
// speaks Chat Completions, which has no token count.
struct ApiPaths {
    model::ApiFormat api;
    std::string_view create;
    std::string_view count_tokens;
};
constexpr ApiPaths k_api_paths[] = {
    {model::ApiFormat::anthropic, "/messages", "/messages/count_tokens"},
    {model::ApiFormat::openai_responses, "/responses", "/responses/input_tokens"},
};
constexpr std::string_view k_chat_completions = "/chat/completions";

const ApiPaths*
paths_of(model::ApiFormat api)
{
    return util::find_by(k_api_paths, &ApiPaths::api, api);
}

// A --base-url without its trailing slashes and with /v1, which it may
// leave out (the OpenAI SDK's habit is to give it, curl examples do not).
std::string
user_base(const std::string& base_url)
{
    std::string base = base_url;
    while (!base.empty() && base.back() == '/') {
        base.pop_back();
    }
    if (base.rfind("http://", 0) != 0 && base.rfind("https://", 0) != 0) {
        throw Error(
            fmt::format("--base-url \"{}\": expected an http:// or https:// URL", base_url));
    }
    const bool has_v1 = base.size() >= 3 && base.compare(base.size() - 3, 3, "/v1") == 0;
    return has_v1 ? base : base + "/v1";
}

// The first-party endpoint of a provider's own API. DeepSeek serves both
// formats at its root (the recorded calls went to api.deepseek.com/chat/
// completions and /responses) and counts no tokens.
void
first_party(Endpoint& e, model::ApiFormat api, const std::string& provider)
{
    if (api == model::ApiFormat::anthropic) {
        e.provider = "anthropic";
        e.base_url = "https://api.anthropic.com/v1";
        e.key_variable = "ANTHROPIC_API_KEY";
    } else if (provider == "deepseek") {
        e.base_url = "https://api.deepseek.com";
        e.key_variable = "DEEPSEEK_API_KEY";
        e.counts_tokens = false;
    } else {
        e.provider = "openai";
        e.base_url = "https://api.openai.com/v1";
        e.key_variable = "OPENAI_API_KEY";
    }
}

} // namespace

std::string
Endpoint::create_url() const
{
    const ApiPaths* paths = paths_of(api);
    return base_url + std::string(paths != nullptr ? paths->create : k_chat_completions);
}

std::string
Endpoint::count_tokens_url() const
{
    const ApiPaths* paths = paths_of(api);
    return paths != nullptr && counts_tokens ? base_url + std::string(paths->count_tokens)
                                             : std::string();
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
    if (api != model::ApiFormat::anthropic && api != model::ApiFormat::openai_chat &&
        api != model::ApiFormat::openai_responses) {
        throw Error(fmt::format("probe sends Anthropic Messages, OpenAI Chat Completions and "
                                "Responses bodies; this one is {}",
                                model::to_string(api)));
    }
    Endpoint e;
    e.api = api;
    e.provider = provider;
    // Claude or Gemini in an OpenAI-format body ("anthropic/claude-sonnet-4.6"):
    // a gateway's body (OpenRouter, LiteLLM), whose cache is its upstream's.
    // OpenAI would refuse the model; only the user knows the gateway.
    const bool gateway =
        api != model::ApiFormat::anthropic && provider != "openai" && provider != "deepseek";
    if (!gateway) {
        first_party(e, api, provider);
    } else if (!base_url) {
        throw Error(fmt::format(
            "this {} body names a model {} serves: a gateway's body (OpenRouter, LiteLLM), which "
            "OpenAI would refuse; give the gateway with --base-url (OpenRouter: "
            "https://openrouter.ai/api/v1, its key from $OPENROUTER_API_KEY; any other's from "
            "$OPENAI_API_KEY or --api-key-file)",
            model::to_string(api), provider));
    } else {
        e.key_variable = "OPENAI_API_KEY";
        e.counts_tokens = false;
    }
    if (base_url) {
        e.base_url = user_base(*base_url);
        if (e.base_url.find("://openrouter.ai/") != std::string::npos) {
            e.key_variable = "OPENROUTER_API_KEY";
        }
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
