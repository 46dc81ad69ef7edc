#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace cachewise::model {

// Token usage as a provider reported it. Anthropic counts cache tokens outside
// input_tokens: the prompt's total is read + write + fresh ("total input =
// cache_read_input_tokens + cache_creation_input_tokens + input_tokens").
struct Usage {
    std::optional<std::int64_t> input_tokens;   // fresh: after the last breakpoint
    std::optional<std::int64_t> cache_read;     // cache_read_input_tokens
    std::optional<std::int64_t> cache_write;    // cache_creation_input_tokens
    std::optional<std::int64_t> cache_write_5m; // cache_creation.ephemeral_5m_input_tokens
    std::optional<std::int64_t> cache_write_1h; // cache_creation.ephemeral_1h_input_tokens
    std::optional<std::int64_t> output_tokens;
    bool summed_from_iterations = false; // compaction: top level zero, usage.iterations[] summed

    enum class Origin : std::uint8_t { response, sse, transcript } origin = Origin::response;

    // read + write + fresh; nullopt when input_tokens is missing. A missing cache
    // field counts as 0 (old responses omit them).
    [[nodiscard]] std::optional<std::int64_t>
    total_input() const
    {
        if (!input_tokens) {
            return std::nullopt;
        }
        return *input_tokens + cache_read.value_or(0) + cache_write_total();
    }
    // The write count without double counting its 5m/1h split.
    [[nodiscard]] std::int64_t
    cache_write_total() const
    {
        if (cache_write) {
            return *cache_write;
        }
        return cache_write_5m.value_or(0) + cache_write_1h.value_or(0);
    }
};

std::string_view to_string(Usage::Origin origin);

} // namespace cachewise::model
