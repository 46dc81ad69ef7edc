#pragma once

#include "model/segment.hpp"
#include "model/usage.hpp"
#include "util/time.hpp"

#include <optional>
#include <string>
#include <vector>

namespace cachewise::model {

// A request-level setting that invalidates caches from some level on (the
// invalidation table of rules/providers/<provider>.json). `value` is a
// canonical rendering; an absent parameter has present == false.
struct Param {
    std::string name;
    std::string value;
    bool present = false;
    Level level = Level::messages;
};

// The API a request body was written for; it decides how the body is read
// and, for rewriting, how a breakpoint is spelt.
enum class ApiFormat : std::uint8_t {
    anthropic,        // Messages API (also Claude Code transcripts)
    openai_chat,      // Chat Completions (OpenAI, DeepSeek, gateways)
    openai_responses, // Responses API
    gemini,           // generateContent
    bedrock_converse, // Bedrock Converse
};
std::string_view to_string(ApiFormat format);

// The identity of the prompt extended by the response's message as the next
// turn would send it back (DeepSeek persists a cache unit there, engines keep
// the generated tokens).
struct Continuation {
    Hash128 chain;
    std::int64_t tokens = 0; // prompt + response message
};

// A Gemini cachedContents.create call: an explicit cache with its lifetime.
struct CacheCreate {
    std::string name; // "cachedContents/abc", from the response
    std::optional<double> ttl_seconds;
    std::optional<Timestamp> expire_time;
};

// The first `tokens` tokens of a prompt equal its analysis partner's up to a
// change inside segment `segment` (set by the analyzer). A cache that reads
// any prefix (OpenAI before explicit breakpoints, Gemini's implicit cache)
// may read into that segment, from the partner's entry for it (`chain`).
struct PartialShare {
    std::size_t segment = 0;
    std::int64_t tokens = 0;
    Hash128 chain;
};

struct Request {
    std::string id;        // the record's own id, or <file>:<line>
    std::string stream;    // explicit session or sub-stream; empty when the log gives none
    std::string workspace; // cache isolation scope (workspace or API key) when the log names it
    std::string file;
    std::uint64_t line = 0;

    std::string provider = "anthropic"; // a name of rules/providers/
    ApiFormat format = ApiFormat::anthropic;
    std::string model;
    std::string served_model; // the model the response names, when it differs
    std::optional<Timestamp> started_at;
    std::optional<Timestamp> first_token_at;
    std::optional<Timestamp> ended_at;

    std::vector<Param> params;
    std::optional<CacheControl> auto_cache_control; // top-level `cache_control`
    std::vector<Segment> segments;                  // in render order
    std::optional<Usage> usage;
    std::optional<PartialShare> partial_share;
    std::optional<Continuation> continuation;
    // OpenAI Responses: the response's id and its output as the next call's
    // input items. A later call that names it (previous_response_id)
    // continues from this call's input and output (ingest::Delivery).
    std::string response_id;
    std::vector<Segment> response_output;
    // Anthropic's own diagnosis of this request's cache (response
    // diagnostics.cache_miss_reason): "" when it reported no miss, nothing
    // when the response carried no diagnostics.
    std::optional<std::string> provider_miss_reason;

    // Cache routing and retention settings other providers take.
    std::string cache_key;      // OpenAI prompt_cache_key
    std::string retention;      // OpenAI prompt_cache_retention or prompt_cache_options.ttl
    bool explicit_mode = false; // OpenAI prompt_cache_options.mode "explicit"
    std::string route;          // the upstream a gateway chose (OpenRouter "provider")
    std::string cached_content; // Gemini: the explicit cache a request reads
    std::optional<CacheCreate> cache_create; // Gemini: this record created one

    bool prompt_logged = true;      // false: only a response was logged
    bool breakpoints_logged = true; // false: the log drops cache_control (Claude Code)
    bool id_given = false;          // the id is the record's own (not made of its place)
    // Every logged segment was counted by the model's tokenizer, and what the
    // reported total leaves above them was booked to some (assign_tokens).
    bool counted_with_residual = false;
    std::vector<std::string> notes;
    // Reported input ÷ the estimate of the logged text, when the estimates
    // were scaled to the usage (1: not scaled). Orders of magnitude off
    // usually means the usage belongs to another request.
    double token_scale = 1.0;

    [[nodiscard]] std::int64_t prompt_tokens() const
    {
        return segments.empty() ? 0 : segments.back().cumulative_tokens;
    }
    // The model that was billed: the served one when the response names it.
    [[nodiscard]] const std::string& billed_model() const
    {
        return served_model.empty() ? model : served_model;
    }
    [[nodiscard]] const Param* param(std::string_view name) const
    {
        for (const auto& p : params) {
            if (p.name == name) {
                return &p;
            }
        }
        return nullptr;
    }
};

// The note a reader adds when the logged response is an error, not a
// completion: the provider processed and billed nothing for the call.
inline constexpr std::string_view k_error_response_note = "the response was an error: ";

// The error the logged response carries, "" when it carries none.
inline std::string_view
response_error(const Request& request)
{
    for (const auto& note : request.notes) {
        if (note.starts_with(k_error_response_note)) {
            return std::string_view(note).substr(k_error_response_note.size());
        }
    }
    return {};
}

} // namespace cachewise::model
