#pragma once

#include "live/api_key.hpp"
#include "model/request.hpp"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace cachewise::live {

// Where a request body goes and how it authenticates: Anthropic Messages,
// OpenAI Chat Completions and Responses, DeepSeek (OpenAI's shapes), and
// gateways in front of Claude or Gemini. A --base-url replaces the scheme,
// host and path prefix for gateways, proxies and compatible servers:
// "http://127.0.0.1:8080" and "http://127.0.0.1:8080/v1" both reach
// .../v1/messages.
struct Endpoint {
    std::string provider; // a name of rules/providers/: whose cache serves the call
    model::ApiFormat api = model::ApiFormat::anthropic;
    std::string base_url; // with its version path, without a trailing slash
    std::string key_variable;
    bool counts_tokens = true; // has the API's token-count endpoint

    [[nodiscard]] std::string create_url() const;
    // The token-counting endpoint (Anthropic count_tokens, OpenAI Responses
    // input_tokens); empty for an API without one.
    [[nodiscard]] std::string count_tokens_url() const;
    // The headers of a call; with `masked`, the key's value is replaced by
    // where it came from, for dry runs.
    [[nodiscard]] std::vector<std::pair<std::string, std::string>>
    headers(const std::optional<ApiKey>& key, bool masked) const;
};

// The endpoint of a request in `api` format for `provider`. Throws Error for
// formats probe cannot send (Gemini, Bedrock), and for a Claude or Gemini
// model in an OpenAI-format body without `base_url` (a gateway's body).
Endpoint endpoint_for(model::ApiFormat api, const std::string& provider,
                      const std::optional<std::string>& base_url);

// The provider's own words from an error body ({"error": {"type", "message"}}
// of Anthropic and OpenAI), else the start of the body.
std::string provider_error_message(const std::string& body);

} // namespace cachewise::live
