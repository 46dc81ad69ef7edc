#pragma once

#include "account/auditor.hpp"

#include <string>
#include <vector>

namespace cachewise::account {

// What an audit's expected split rests on, said beside it: one forced
// cache (`audit --policy`), Anthropic's documented cache alone, each
// provider's cache, or none (no request's prompt was logged, so nothing was
// simulated and the reported usage stands in); and which of those caches
// are estimates.
struct ExpectedBasis {
    enum class Kind { forced_policy, anthropic, each_provider, none };
    Kind kind = Kind::anthropic;
    std::string forced;                 // with forced_policy
    std::vector<std::string> policies;  // with each_provider: the caches simulated
    std::vector<std::string> estimated; // caches modelled on best-effort behaviour
};

// Anthropic's prompt-caching documentation states the whole mechanism
// (breakpoints, the 20-block lookback, TTLs, minimums); every other cache
// (OpenAI, DeepSeek, Gemini, Bedrock's copy, the serving engines) is modelled
// on best-effort behaviour or unpublished facts (man cachewise, PROVIDERS
// AND CACHES).
bool documented_cache(std::string_view policy);

ExpectedBasis expected_basis(const AuditResult& result);

// "estimated: the openai cache rests on best-effort behaviour …", or "" when
// every cache simulated is documented: said beside the expected split in
// every format.
std::string estimated_caveat(const ExpectedBasis& basis);

} // namespace cachewise::account
