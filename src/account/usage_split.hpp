#pragma once

#include "analysis/finding.hpp"
#include "model/request.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cachewise::account {

// A quantity by billing class: a prompt's read, written and fresh tokens, plus
// the output; Split counts tokens, Money (cost.hpp) dollars.
template <typename T> struct ByClass {
    T read = 0;
    T write_5m = 0;
    T write_1h = 0;
    T fresh = 0;
    T output = 0;

    [[nodiscard]] T write() const { return write_5m + write_1h; }
    [[nodiscard]] T input() const { return read + write() + fresh; }
    // In this order, so that dollar totals round as they always have.
    [[nodiscard]] T total() const { return fresh + write_5m + write_1h + read + output; }
    ByClass& operator+=(const ByClass& o)
    {
        read += o.read;
        write_5m += o.write_5m;
        write_1h += o.write_1h;
        fresh += o.fresh;
        output += o.output;
        return *this;
    }
};

using Split = ByClass<std::int64_t>;

// What the provider reported, normalised to read / write / fresh / output.
// Exclusive schema (Anthropic, Bedrock): fresh is input_tokens and
// cache_creation_input_tokens is the sum of its 5m and 1h parts, so the split
// is taken from the parts when they are reported and never added twice.
// Inclusive schema (OpenAI, DeepSeek, Gemini, OTel, gateways): fresh is the
// prompt total minus the reads and writes inside it. Writes of providers
// with a single write class are counted as write_5m ("standard write").
struct ReportedSplit {
    Split split;
    bool write_ttl_assumed = false; // only cache_creation_input_tokens: counted as 5m
};

// Nothing when the usage lacks its schema's total (see check_usage).
std::optional<ReportedSplit> reported_split(const model::Usage& usage);

// The identities a usage record must satisfy (CW030 usage-inconsistent),
// each finding naming the identity that failed: every count present where
// required and not negative; Anthropic cache_creation = 5m + 1h parts;
// OpenAI cached <= prompt; DeepSeek hit + miss = prompt and cached = hit;
// Gemini cached <= prompt; a record carrying both schemas (LiteLLM) with
// prompt_tokens = input_tokens + cache_read + cache_creation and the two
// read counts equal.
std::vector<analysis::Finding> check_usage(const model::Request& request);

} // namespace cachewise::account
