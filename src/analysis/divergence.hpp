#pragma once

#include "analysis/dynamic_fields.hpp"
#include "analysis/finding.hpp"
#include "model/request.hpp"
#include "model/text_store.hpp"
#include "model/tokens.hpp"
#include "ruleset/rules.hpp"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cachewise::analysis {

// The tokens of a text by a model's own tokenizer; nothing when the model
// has none at hand.
using ExactTextCounter =
    std::function<std::optional<std::int64_t>(const std::string& model, std::string_view text)>;

// What the divergence analysis reads besides the two requests.
struct DivergenceContext {
    const ruleset::Rules& rules;
    const model::TextStore& texts;
    const DynamicFieldMatcher& matcher;
    const model::TokenEstimator& estimator;
    // Token positions inside a segment whose tokens were counted exactly are
    // counted with the same tokenizer when this is set, else estimated.
    const ExactTextCounter* count_exact = nullptr;
};

// Where byte `offset` of `text`, the display text of segment k of `r`, lies:
// its character offset in the text and its token in the prompt, counted with
// the model's tokenizer where the segment's tokens were (count_exact), else
// estimated and scaled to the segment's tokens (as find_divergence places a
// change).
std::pair<std::size_t, std::int64_t> position_in_segment(const model::Request& r, std::size_t k,
                                                         std::string_view text, std::size_t offset,
                                                         const model::TokenEstimator& estimator,
                                                         const ExactTextCounter* count_exact);

// Tokens of `partner`'s cache that a request parting from it at token
// `change` of segment `k` no longer reads: what its cache held (up to its
// last breakpoint when it had breakpoints, the whole prompt otherwise) less
// what the provider still reads after the change (up to it on a cache that
// reads any prefix, the last unit boundary on DeepSeek, the last breakpoint
// before the block elsewhere), each as the provider reads it (minimum,
// steps, units: ProviderRules::readable_tokens).
std::int64_t tokens_lost(const model::Request& partner, std::size_t k, std::int64_t change,
                         const ruleset::Rules& rules);

// Whether `partner`'s cache reads a prefix ending at any token (OpenAI
// without explicit breakpoints, Gemini's implicit cache, vLLM, SGLang), not
// only at breakpoints (Anthropic, Bedrock) or whole units (DeepSeek): then
// the text before a change inside a segment is still read.
bool reads_any_prefix(const model::Request& partner, const ruleset::Rules& rules);

// The earliest divergence of `request` from `partner` and its cause, or
// nothing when one prompt is a prefix of the other (append-only growth) or
// the prompts part after everything the partner had cached.
std::optional<Finding> find_divergence(const model::Request& request, const model::Request& partner,
                                       const DivergenceContext& context);

// A template bug (CW003 reordered tools, CW004 serialisation drift, CW010
// dynamic value) where the two part after the partner's last breakpoint: it
// lost nothing today but breaks any breakpoint placed after it. Severity
// info, kind "latent-…"; nullopt for anything else.
std::optional<Finding> find_latent(const model::Request& request, const model::Request& partner,
                                   const DivergenceContext& context);

// Dynamic values in the part of a prompt that is meant to be shared across
// requests, up to the last breakpoint (the whole prompt without one): tools,
// system, and the first `shared_head` segments (the static head of a template
// family). Messages are history, fixed once sent: a date in an old tool
// result or the id of a past tool call spoils nothing. A template
// (`whole_prompt`) is scanned to its last breakpoint, its messages up to the
// first assistant reply: what the application writes into every request
// (the head of the conversation); from the reply on they are its history,
// a body from a log as much as a template with few-shot turns.
std::vector<Finding> scan_dynamic_fields(const model::Request& request,
                                         const DivergenceContext& context,
                                         bool whole_prompt = false, std::size_t shared_head = 0);

} // namespace cachewise::analysis
