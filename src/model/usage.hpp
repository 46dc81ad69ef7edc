#pragma once

#include "ruleset/rules.hpp"

#include <cstdint>
#include <optional>
#include <string_view>

namespace cachewise::model {

using ruleset::UsageSchema;

// The largest token count a log may report for one request: ten times the
// longest context any model accepts (10M tokens). Counts are checked against
// it where they are read, so that sums of a few of them cannot overflow and
// no count can drive a long loop.
inline constexpr std::int64_t k_max_token_count = 100'000'000;

// Token usage as a provider reported it, field by field; account/usage_split
// turns it into read / write / fresh / output.
//
// Two schemas: Anthropic and Bedrock count cache tokens outside input_tokens
// (total = read + write + input_tokens); OpenAI, DeepSeek, Gemini and OTel
// count them inside the prompt total (read + write + fresh = prompt_tokens).
// Gateways (LiteLLM) may report both; the schema says which total is the
// prompt's, so that nothing is counted twice.
struct Usage {
    UsageSchema schema = UsageSchema::exclusive;
    std::string_view dialect = "anthropic"; // whose field names: for messages

    // Exclusive schema (Anthropic names; Bedrock's camelCase maps here).
    std::optional<std::int64_t> input_tokens;   // fresh: after the last breakpoint
    std::optional<std::int64_t> cache_read;     // cache_read_input_tokens
    std::optional<std::int64_t> cache_write;    // cache_creation_input_tokens
    std::optional<std::int64_t> cache_write_5m; // cache_creation.ephemeral_5m_input_tokens
    std::optional<std::int64_t> cache_write_1h; // cache_creation.ephemeral_1h_input_tokens
    std::optional<std::int64_t> output_tokens;  // output_tokens / completion_tokens / ...

    // Inclusive schema.
    std::optional<std::int64_t>
        prompt_tokens; // prompt_tokens, promptTokenCount, Responses input_tokens
    std::optional<std::int64_t>
        cached_tokens; // *_tokens_details.cached_tokens, cachedContentTokenCount
    std::optional<std::int64_t>
        cache_write_tokens;                  // *_tokens_details.cache_write_tokens (GPT-5.6+)
    std::optional<std::int64_t> hit_tokens;  // DeepSeek prompt_cache_hit_tokens
    std::optional<std::int64_t> miss_tokens; // DeepSeek prompt_cache_miss_tokens

    bool summed_from_iterations = false; // compaction: top level zero, usage.iterations[] summed
    // The cost the log itself reports (OpenRouter usage.cost, LiteLLM cost or
    // response_cost), used where rules/pricing.json has no price.
    std::optional<double> cost_usd;

    enum class Origin : std::uint8_t { response, sse, transcript, span } origin = Origin::response;

    // The prompt's total input; nullopt when the schema's total is missing. A
    // missing cache field counts as 0 (old responses omit them).
    [[nodiscard]] std::optional<std::int64_t> total_input() const
    {
        if (schema == UsageSchema::inclusive) {
            if (prompt_tokens) {
                return prompt_tokens;
            }
            if (hit_tokens && miss_tokens) {
                return *hit_tokens + *miss_tokens;
            }
            return std::nullopt;
        }
        if (!input_tokens) {
            return std::nullopt;
        }
        return *input_tokens + cache_read.value_or(0) + cache_write_total();
    }
    // Tokens reported read from the cache. Inside an inclusive total:
    // DeepSeek's hit count, the details' cached_tokens, or (gateways)
    // Anthropic's cache_read_input_tokens; outside one, cache_read.
    [[nodiscard]] std::int64_t read_tokens() const
    {
        if (schema == UsageSchema::inclusive) {
            return hit_tokens.value_or(cached_tokens.value_or(cache_read.value_or(0)));
        }
        return cache_read.value_or(0);
    }
    // The write count without double counting its 5m/1h split.
    [[nodiscard]] std::int64_t cache_write_total() const
    {
        if (cache_write) {
            return *cache_write;
        }
        return cache_write_5m.value_or(0) + cache_write_1h.value_or(0);
    }
};

std::string_view to_string(Usage::Origin origin);

} // namespace cachewise::model
