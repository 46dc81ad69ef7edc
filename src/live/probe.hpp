#pragma once

#include "account/usage_split.hpp"
#include "analysis/finding.hpp"
#include "live/http_client.hpp"
#include "live/retry.hpp"
#include "model/text_store.hpp"
#include "ruleset/rules.hpp"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace cachewise::live {

struct ProbeOptions {
    std::string file;                        // a request body or template (JSON)
    std::map<std::string, std::string> vars; // --var name=value
    int times = 2;
    bool keep_max_tokens = false;
    bool diagnostics = false; // Anthropic: diagnostics.previous_message_id on repeats
    bool send = false;        // --yes; a dry run otherwise
    std::optional<std::string> base_url;
    std::optional<std::string> api_key_file;
    std::optional<std::string> record; // append each call as an exchange record
    RetryPolicy retry;
    HttpTimeouts timeouts;
    // Counts a loaded request with its model's own tokenizer where there is
    // one (cli::TokenizerHook), so that the plan and the prediction use the
    // counts analyze and audit would: unset, every count is estimated.
    std::function<void(model::Request&, const model::TextStore&)> count_exact;
};

struct PlannedBreakpoint {
    std::string path;
    std::int64_t tokens = 0; // estimated prefix tokens up to and including the block
    std::string ttl;
    bool automatic = false;
};

struct ProbeCall {
    int n = 0; // 1-based
    long status = 0;
    int attempts = 1;
    std::vector<std::string> retried; // why each retry happened ("HTTP 429, waited 1.0 s")
    double ttft_seconds = 0;          // to the first response byte (non-streamed)
    double total_seconds = 0;
    std::optional<account::Split> usage; // as reported, normalised
    std::optional<double> cost_usd;
    std::string message_id;
    bool diagnostics_requested = false;
    std::optional<std::string> cache_miss_reason; // "" = the provider reported no miss
};

struct ProbeResult {
    std::string file;
    std::string provider;
    std::string model;
    std::string api;
    bool sent = false;
    int times = 0;
    // What is (or would be) sent.
    std::string method = "POST";
    std::string url;
    std::vector<std::pair<std::string, std::string>> headers; // the key masked
    std::size_t body_bytes = 0;
    std::string key_origin; // where the key comes from; empty: none found
    std::vector<PlannedBreakpoint> breakpoints;
    std::int64_t prompt_tokens = 0;           // estimated, or counted when tokens_exact
    bool tokens_exact = false;                // counted with the model's own tokenizer
    std::optional<double> estimated_cost_usd; // all calls, as the simulator predicts them
    // The output tokens priced per call: 1 (the output is cut), the body's
    // max_tokens with --keep-max-tokens (an upper bound), or nothing when
    // the body keeps an output of unknown size.
    std::optional<std::int64_t> output_priced = 1;
    std::vector<std::string> unfilled; // placeholders sent as written
    // What happened.
    std::vector<ProbeCall> calls;
    std::vector<account::Split> predicted; // the simulator, on the same sequence
    std::vector<analysis::Finding> findings;
    // What the reader should know beside the findings: the provider counted
    // the prompt outside the estimate's error band, say.
    std::vector<std::string> notes;
    long connections = 0; // TCP connections opened (keep-alive reuses one)
};

// Sends a request body (or a rendered template) `times` times in a row, or,
// without `send`, only says what it would send. Calls are sequential: the
// point is the order. Throws Error: usage errors with ExitCode::usage,
// network and provider errors (after the retries) with ExitCode::network.
ProbeResult probe(const ProbeOptions& options, const ruleset::Rules& rules, HttpClient& client);

} // namespace cachewise::live
