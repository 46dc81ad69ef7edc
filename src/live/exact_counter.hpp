#pragma once

#include "advise/prefix_counter.hpp"
#include "live/api_key.hpp"
#include "live/endpoint.hpp"
#include "live/http_client.hpp"
#include "live/retry.hpp"

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>

namespace cachewise::live {

// The prefix of a body that ends with the block at `path`, as a body the
// counting endpoint accepts: tools, system and messages up to that block.
// A prefix that ends before the messages gets one "." user message, which
// `baseline_body` counts alone so that it can be taken off. Nothing for a
// format without a counting endpoint (Chat Completions).
std::optional<std::string> prefix_body(const std::string& body_json, const model::Request& request,
                                       std::size_t segment, bool& needs_baseline);
std::string baseline_body(const model::Request& request);

// The directory of cached counts: $XDG_CACHE_HOME/cachewise/token-counts, else
// ~/.cache/cachewise/token-counts; empty when there is none (no absolute
// $XDG_CACHE_HOME or $HOME), and then nothing is cached.
std::filesystem::path default_count_cache();

// Exact prefix counts from Anthropic's count_tokens (and OpenAI's Responses
// input_tokens), each cached on disk under the prefix's chain hash and the
// model, so that a CI run repeats no call. Counting is free but rate
// limited; only the prefixes a decision depends on are asked for.
class ExactCounter : public advise::PrefixCounter {
public:
    ExactCounter(HttpClient& client, std::optional<std::string> base_url,
                 std::optional<std::string> api_key_file, std::filesystem::path cache_dir,
                 RetryPolicy retry = {});

    std::optional<std::int64_t> count_prefix(const std::string& body_json,
                                             const model::Request& request,
                                             std::size_t segment) override;

    [[nodiscard]] std::size_t prefixes() const { return m_prefixes; }
    [[nodiscard]] std::size_t calls() const { return m_calls; }
    [[nodiscard]] std::size_t cached() const { return m_cached; }

private:
    std::int64_t counted(const std::string& key, const Endpoint& endpoint, const std::string& body);

    HttpClient& m_client;
    std::optional<std::string> m_base_url;
    std::optional<std::string> m_key_file;
    std::filesystem::path m_dir;
    RetryPolicy m_retry;
    std::size_t m_prefixes = 0;
    std::size_t m_calls = 0;
    std::size_t m_cached = 0;
};

} // namespace cachewise::live
