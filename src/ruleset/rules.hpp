#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace re2 {
class RE2;
}

namespace cachewise::ruleset {

// Where a number came from. Every fact in rules/ carries one; printers cite it.
struct Provenance {
    std::string source;
    std::string as_of;   // YYYY-MM-DD the fact was taken from its source
    bool certain = true; // false for second-hand or conflicting facts ("confidence")
};

// The three cache levels of Anthropic's render order; a change at one level
// invalidates that level and every later one.
enum class Level { tools = 0, system = 1, messages = 2 };
std::string_view to_string(Level level);

// A full-match pattern over a normalised model id (see normalize_model_id).
class ModelPattern {
public:
    explicit ModelPattern(const std::string& pattern);

    // ok() and error() compile the pattern; matches() compiles it on first
    // use (thread-safe), so that a command that never looks a model up never
    // pays for the regexes of every model in rules/ (start-up time).
    [[nodiscard]] bool ok() const;
    [[nodiscard]] std::string error() const;
    [[nodiscard]] bool matches(std::string_view normalized_model) const;
    [[nodiscard]] const std::string& text() const { return m_text; }

private:
    struct Compiled;
    [[nodiscard]] const re2::RE2& compiled() const;
    std::string m_text;
    std::shared_ptr<Compiled> m_compiled; // compiled once, shared by copies
};

// "us.anthropic.claude-sonnet-4-5-20250929-v1:0" -> "claude-sonnet-4-5": drops
// gateway and platform prefixes, region prefixes, date stamps and version
// suffixes so that one pattern covers every spelling of a model.
std::string normalize_model_id(std::string_view model);

struct MinimumRule {
    ModelPattern pattern;
    std::int64_t tokens = 0;
    Provenance provenance;
};

struct InvalidationRule {
    std::string param; // a request parameter known to the model (see model/params.hpp)
    Level level = Level::messages;
    std::string note;
    Provenance provenance;
};

template <typename T> struct Sourced {
    T value{};
    Provenance provenance;
};

struct MinimumLookup {
    std::int64_t tokens = 0;
    bool known_model = false; // false: the default for unknown models was used
    const Provenance* provenance = nullptr;

    // A listed model whose minimum is documented or measured exactly, not
    // assumed, second-hand or a bound.
    [[nodiscard]] bool certain() const
    {
        return known_model && (provenance == nullptr || provenance->certain);
    }
};

// What CW012 says after a minimum it is not sure of, the same in lint and
// audit: empty when `certain`; an assumption when the model is not `listed`
// (the provider's default applied); else a listed value that is second-hand,
// a bound or assumed, with the rules file that gives its sources.
std::string minimum_doubt(bool certain, bool listed, std::string_view provider);

// How a provider's usage counts cache tokens: outside the input count
// (Anthropic, Bedrock: total = read + write + input_tokens) or inside the
// prompt total (OpenAI, DeepSeek, Gemini, OTel: cached <= prompt_tokens).
enum class UsageSchema : std::uint8_t { exclusive, inclusive };
std::string_view to_string(UsageSchema schema);

// Caching rules of one provider or serving engine
// (rules/providers/<name>.json). Facts that only some providers have
// (lookback window, hit steps, block size, ...) are named facts, checked
// at load time against the list each provider's simulator needs.
struct ProviderRules {
    std::string name;
    std::string file; // for messages
    Sourced<UsageSchema> usage_schema;
    std::vector<Level> render_order; // empty for serving engines
    Provenance render_order_provenance;
    // Models that cache at breakpoints rather than automatically (OpenAI GPT-5.6+).
    std::optional<ModelPattern> breakpoint_models;
    // Anthropic: models that keep an earlier assistant turn's thinking blocks
    // in the prompt; the others strip them once a user turn other than tool
    // results follows. Unset: no stripping is modelled.
    std::optional<ModelPattern> thinking_kept_models;
    // "max_breakpoints", "lookback_positions", "ttl_seconds.5m",
    // "price_multipliers.read", "block_size", ...; booleans are 0 or 1.
    std::map<std::string, Sourced<double>, std::less<>> facts;
    std::map<std::string, Sourced<std::string>, std::less<>> labels; // "eviction"
    Sourced<std::int64_t> default_minimum_tokens;
    std::vector<MinimumRule> minimums;
    std::vector<InvalidationRule> invalidation;

    [[nodiscard]] bool has(std::string_view fact_name) const
    {
        return facts.find(fact_name) != facts.end();
    }
    // Throws Error naming the file when the fact is missing.
    [[nodiscard]] const Sourced<double>& fact(std::string_view fact_name) const;
    [[nodiscard]] std::int64_t integer(std::string_view fact_name) const
    {
        return static_cast<std::int64_t>(fact(fact_name).value);
    }
    [[nodiscard]] double ttl_seconds(std::string_view ttl) const
    {
        return fact(std::string("ttl_seconds.") + std::string(ttl)).value;
    }
    [[nodiscard]] double multiplier(std::string_view kind) const
    {
        return fact(std::string("price_multipliers.") + std::string(kind)).value;
    }
    [[nodiscard]] bool uses_breakpoints(std::string_view model) const;
    // Whether `model` strips an earlier turn's thinking blocks (see
    // thinking_kept_models).
    [[nodiscard]] bool strips_thinking(std::string_view model) const;
    [[nodiscard]] MinimumLookup minimum_tokens(std::string_view model) const;
    // The tokens a request of `model` reads of a cached prefix of `shared`
    // tokens: none below the minimum, else whole steps or units. Used by
    // analyze and audit alike, so that a break loses what the cache would
    // have read, no more.
    [[nodiscard]] std::int64_t readable_tokens(std::int64_t shared, std::string_view model) const;
    [[nodiscard]] const InvalidationRule* invalidation_for(std::string_view param) const;
};

// Every provider cachewise knows, in the order of rules/providers/.
inline constexpr std::string_view k_provider_names[] = {
    "anthropic", "bedrock", "openai", "deepseek", "gemini", "vllm", "sglang"};

// Prices in USD per million tokens.
struct PriceSet {
    double input = 0;
    double output = 0;
    double write_5m = 0;
    double write_1h = 0;
    double read = 0;
};

struct PricePeriod {
    std::optional<std::string> effective_from; // YYYY-MM-DD; none = since release
    PriceSet prices;
    // A second price set that applies when the prompt exceeds a size.
    std::optional<std::int64_t> long_prompt_above;
    PriceSet long_prompt_prices;
    // A price set for peak hours (UTC minutes of the day, [from, to) pairs),
    // as DeepSeek bills.
    std::vector<std::pair<int, int>> peak_minutes_utc;
    PriceSet peak_prices;
    Provenance provenance;
};

struct ModelPricing {
    std::string name;
    ModelPattern pattern;
    std::vector<PricePeriod> periods; // sorted by effective_from
};

struct Pricing {
    std::string file;
    std::string currency;
    std::vector<ModelPricing> models;

    // The period in force on `date` (YYYY-MM-DD, empty = latest) for `model`.
    [[nodiscard]] const PricePeriod* find(std::string_view model, std::string_view date = {}) const;
    // The date prices for `model` start, when it is priced only from a date
    // later than `date`: "no price effective on DATE". nullopt otherwise.
    [[nodiscard]] std::optional<std::string> starts_after(std::string_view model,
                                                          std::string_view date) const;
};

// Parameters of the token estimator (rules/tokens.json); see model/tokens.hpp.
struct TokenRules {
    std::string file;
    Sourced<double> letters_free;            // letters in a run that cost one token
    Sourced<double> letters_per_extra_token; // beyond that
    Sourced<double> digits_per_token;
    Sourced<double> punctuation_per_token;
    Sourced<double> repeated_punctuation_per_token; // a run of one repeated character
    Sourced<double> whitespace_run_tokens;          // a run of whitespace not followed by a word
    Sourced<double> cjk_tokens_per_char;
    Sourced<double> other_tokens_per_char; // other non-ASCII code points
    Sourced<double> block_overhead;
    Sourced<double> message_overhead;
    Sourced<double> tool_overhead;
    Sourced<double> image_tokens;
    Sourced<double> tool_use_system_prompt; // added by the API when tools are given
    Sourced<double> thinking_system_prompt; // added when extended thinking is on
    Sourced<double> document_base64_bytes_per_token;
    Sourced<double> error_band_percent;

    struct ModelMultiplier {
        ModelPattern pattern;
        double value = 1.0;
        Provenance provenance;
    };
    std::vector<ModelMultiplier> model_multipliers;

    [[nodiscard]] double multiplier_for(std::string_view model) const;
    // The estimate's error band as a fraction (20% is 0.2).
    [[nodiscard]] double error_band() const { return error_band_percent.value / 100.0; }
};

// Patterns of values that change between requests (rules/dynamic-fields.json
// and files given with --dynamic-fields). Validated here; compiled together
// into an RE2::Set by analysis::DynamicFieldMatcher.
struct DynamicFieldPattern {
    std::string name;
    std::string kind;
    std::string pattern; // RE2 syntax
    std::vector<std::string> examples;
    std::vector<std::string> counter_examples; // text that must not match: prose, code, paths
    bool announces = false; // introduces a value ("Today is"), reported only without one
    bool fallback = false;  // a catch-all, reported only where no other value pattern matches
    // RE2 patterns for the text around a value that make it something else:
    // a duration ("02:00:00 per job"), a quantity ("1700000000 rows"), a
    // date in a company's history ("founded on 2019-03-01"). Empty: none.
    std::string not_preceded_by; // excludes a value when it matches just before it
    std::string not_followed_by; // excludes a value when it matches just after it
    std::string file;
};

struct DynamicFieldRules {
    std::vector<DynamicFieldPattern> patterns;
    std::size_t entropy_min_length = 20;
    double entropy_min_bits_per_char = 4.0;
    std::size_t entropy_min_digits = 4; // keeps identifiers like "payload_cache1" out
    std::string entropy_kind = "random-token";
    // Runs starting with these are ids of past turns (toolu_, call_, msg_):
    // history, fixed once sent.
    std::vector<std::string> entropy_ignore_prefixes;
    // Checked by analysis::DynamicFieldMatcher, which owns the entropy test.
    std::vector<std::string> entropy_examples;
    std::vector<std::string> entropy_counter_examples;
    std::string entropy_file;
};

// The shape of an open model (rules/models.json), for the prefill model.
struct ModelShape {
    std::string id;
    std::vector<std::string> aliases;
    int layers = 0;
    int hidden = 0;
    int heads = 0;
    int kv_heads = 0;
    int head_dim = 0;   // query/key head dim
    int v_head_dim = 0; // value head dim (= head_dim unless MLA)
    int ffn = 0;
    int vocab = 0;
    double non_embedding_params = 0;
    bool mla = false;
    int kv_lora_rank = 0;
    int qk_rope_head_dim = 0;
    int sliding_window_layers = 0;
    int window = 0;
    Provenance provenance;
};

struct GpuSpec {
    std::string id;
    std::vector<std::string> aliases;
    double bf16_tflops = 0;
    double fp16_tflops = 0;
    std::optional<double> fp8_tflops;
    double bandwidth_tbps = 0;
    Provenance provenance;
};

struct Rules {
    std::string origin; // "built-in" or the directory given
    std::vector<ModelShape> models;
    std::vector<GpuSpec> gpus;
    Sourced<double> assumed_utilization;

    // Case-insensitive by id or alias; nullptr when unknown.
    [[nodiscard]] const ModelShape* find_model(std::string_view name) const;
    [[nodiscard]] const GpuSpec* find_gpu(std::string_view name) const;
    // The rules of a provider of k_provider_names; throws Error for another name.
    [[nodiscard]] const ProviderRules& provider(std::string_view name) const;
    std::map<std::string, ProviderRules, std::less<>> providers;
    Pricing pricing;
    TokenRules tokens;
    DynamicFieldRules dynamic_fields;
};

// Adds the patterns of a user file (same format as rules/dynamic-fields.json,
// "entropy" optional). Throws Error naming the file and key.
void add_dynamic_fields(DynamicFieldRules& rules, const std::string& path);

// Overlays a user price file (format of rules/pricing.json): its models come
// first, so they replace the built-in price of every model they match.
// Throws Error naming the file and key.
void add_prices(Pricing& pricing, const std::string& path);

// Loads and validates rules from `dir` (when given) or from the copies built
// into the binary. Throws Error naming the file and key of the first problem.
std::shared_ptr<const Rules> load_rules(const std::optional<std::string>& dir);

} // namespace cachewise::ruleset
