#include "ruleset/rules.hpp"

#include "ruleset/embedded.hpp"
#include "util/enum_names.hpp"
#include "util/error.hpp"
#include "util/file.hpp"
#include "util/find_by.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <re2/re2.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <unordered_map>

namespace cachewise::ruleset {

using nlohmann::json;

constexpr auto k_level_names = util::names_of<Level>({"tools", "system", "messages"});

std::string_view
to_string(Level level)
{
    return k_level_names[level];
}

std::string_view
to_string(UsageSchema schema)
{
    return schema == UsageSchema::inclusive ? "inclusive" : "exclusive";
}

namespace {

// Answers kept by a pattern, and model names normalised by a thread: the
// first ids met, enough for any log's models.
constexpr std::size_t k_memo_limit = 4096;

struct StringHash {
    using is_transparent = void; // NOLINT(readability-identifier-naming): the standard's name
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

} // namespace

// The answers given so far are kept by model id: the rules' lookups (price,
// minimum, provider, breakpoints) try pattern after pattern for every
// request, on the handful of ids a log has. Under a lock: the parse workers
// ask too.
struct ModelPattern::Compiled {
    std::once_flag once;
    std::unique_ptr<const re2::RE2> re;
    std::mutex memo_mutex;
    std::unordered_map<std::string, bool, StringHash, std::equal_to<>> memo;
};

ModelPattern::ModelPattern(const std::string& pattern)
    : m_text(pattern), m_compiled(std::make_shared<Compiled>())
{}

const re2::RE2&
ModelPattern::compiled() const
{
    std::call_once(m_compiled->once, [this] {
        m_compiled->re = std::make_unique<const re2::RE2>(m_text, re2::RE2::Quiet);
    });
    return *m_compiled->re;
}

bool
ModelPattern::ok() const
{
    return compiled().ok();
}

std::string
ModelPattern::error() const
{
    return compiled().error();
}

bool
ModelPattern::matches(std::string_view normalized_model) const
{
    const auto& re = compiled();
    if (!re.ok()) {
        return false;
    }
    Compiled& c = *m_compiled;
    {
        const std::lock_guard lock(c.memo_mutex);
        if (const auto it = c.memo.find(normalized_model); it != c.memo.end()) {
            return it->second;
        }
    }
    const bool match =
        re2::RE2::FullMatch(re2::StringPiece(normalized_model.data(), normalized_model.size()), re);
    const std::lock_guard lock(c.memo_mutex);
    if (c.memo.size() < k_memo_limit) {
        c.memo.emplace(std::string(normalized_model), match);
    }
    return match;
}

namespace {

std::string
normalize_uncached(std::string_view model)
{
    std::string id(model);
    std::transform(id.begin(), id.end(), id.begin(),
                   [](unsigned char c) { return std::tolower(c); });
    // Gateway prefixes ("anthropic/", "litellm_proxy/anthropic/", "bedrock/...").
    if (const auto slash = id.rfind('/'); slash != std::string::npos) {
        id.erase(0, slash + 1);
    }
    // Bedrock: "us.anthropic.claude-..." and "anthropic.claude-...".
    if (const auto at = id.find("anthropic."); at != std::string::npos) {
        id.erase(0, at + 10);
    }
    // Bedrock version suffix "-v1:0", Vertex "@20250514".
    if (const auto colon = id.find(':'); colon != std::string::npos) {
        id.erase(colon);
    }
    if (const auto at = id.find('@'); at != std::string::npos) {
        id.erase(at);
    }
    // "claude-sonnet-4.6", "gpt-5.6", "gemini-2.5-flash": versions are spelt
    // with hyphens in the rules' patterns.
    std::replace(id.begin(), id.end(), '.', '-');
    static const re2::RE2 k_suffix(R"((-v\d+)$)");
    re2::RE2::Replace(&id, k_suffix, "");
    static const re2::RE2 k_date(R"(-(\d{8}|latest)$)");
    re2::RE2::Replace(&id, k_date, "");
    // "claude-4-6-sonnet" (OpenRouter's spelling) -> "claude-sonnet-4-6".
    static const re2::RE2 k_version_first(
        R"(^claude-(\d+(?:-\d+)?)-(opus|sonnet|haiku|fable|mythos)$)");
    re2::RE2::Replace(&id, k_version_first, "claude-\\2-\\1");
    return id;
}

} // namespace

// Every request asks several times (its provider, minimum, price, breakpoint
// and thinking rules), three regular-expression replacements each time, for
// a handful of distinct names in a log: a per-thread memo of the first
// names met, as ModelPattern's, so that it stays small.
std::string
normalize_model_id(std::string_view model)
{
    thread_local std::unordered_map<std::string, std::string, StringHash, std::equal_to<>> memo;
    if (const auto it = memo.find(model); it != memo.end()) {
        return it->second;
    }
    std::string id = normalize_uncached(model);
    if (memo.size() < k_memo_limit) {
        memo.emplace(std::string(model), id);
    }
    return id;
}

MinimumLookup
ProviderRules::minimum_tokens(std::string_view model) const
{
    const std::string id = normalize_model_id(model);
    for (const auto& rule : minimums) {
        if (rule.pattern.matches(id)) {
            return {rule.tokens, true, &rule.provenance};
        }
    }
    return {default_minimum_tokens.value, false, &default_minimum_tokens.provenance};
}

std::int64_t
ProviderRules::readable_tokens(std::int64_t shared, std::string_view model) const
{
    // Rule "minimum cacheable length": a shorter prefix is processed without
    // caching. Steps: OpenAI "cache hits occurring in increments of 128
    // tokens", Gemini's measured 2,048-token steps (hit_step_tokens);
    // DeepSeek "uses 64 tokens as a storage unit" (unit_tokens); vLLM's full
    // blocks and SGLang's pages (block_size).
    if (shared < minimum_tokens(model).tokens) {
        return 0;
    }
    for (const std::string_view step : {"hit_step_tokens", "unit_tokens", "block_size"}) {
        if (has(step) && integer(step) > 1) {
            return shared / integer(step) * integer(step);
        }
    }
    return shared;
}

std::string
minimum_doubt(bool certain, bool listed, std::string_view provider)
{
    if (certain) {
        return {};
    }
    if (!listed) {
        return " (an assumed minimum: not documented for this model)";
    }
    return fmt::format(" (uncertain for this model: rules/providers/{}.json gives the sources)",
                       provider);
}

const Sourced<double>&
ProviderRules::fact(std::string_view fact_name) const
{
    const auto it = facts.find(fact_name);
    if (it == facts.end()) {
        throw Error(fmt::format("rules file {}: {}: missing", file, fact_name));
    }
    return it->second;
}

bool
ProviderRules::uses_breakpoints(std::string_view model) const
{
    return breakpoint_models && breakpoint_models->matches(normalize_model_id(model));
}

bool
ProviderRules::strips_thinking(std::string_view model) const
{
    return thinking_kept_models && !thinking_kept_models->matches(normalize_model_id(model));
}

const ProviderRules&
Rules::provider(std::string_view name) const
{
    const auto it = providers.find(name);
    if (it == providers.end()) {
        throw Error(
            fmt::format("unknown provider \"{}\" (expected one of rules/providers/)", name));
    }
    return it->second;
}

const InvalidationRule*
ProviderRules::invalidation_for(std::string_view param) const
{
    return util::find_by(invalidation, &InvalidationRule::param, param);
}

const PricePeriod*
Pricing::find(std::string_view model, std::string_view date) const
{
    const std::string id = normalize_model_id(model);
    for (const auto& entry : models) {
        if (!entry.pattern.matches(id)) {
            continue;
        }
        const PricePeriod* best = nullptr;
        for (const auto& period : entry.periods) {
            if (date.empty() || !period.effective_from || *period.effective_from <= date) {
                best = &period; // periods are sorted: the last one that started wins
            }
        }
        return best;
    }
    return nullptr;
}

std::optional<std::string>
Pricing::starts_after(std::string_view model, std::string_view date) const
{
    const std::string id = normalize_model_id(model);
    for (const auto& entry : models) {
        if (!entry.pattern.matches(id)) {
            continue;
        }
        const auto& first = entry.periods.front().effective_from;
        if (!date.empty() && first && *first > date) {
            return first;
        }
        return std::nullopt;
    }
    return std::nullopt;
}

double
TokenRules::multiplier_for(std::string_view model) const
{
    const std::string id = normalize_model_id(model);
    for (const auto& m : model_multipliers) {
        if (m.pattern.matches(id)) {
            return m.value;
        }
    }
    return 1.0;
}

namespace {

// How much of a rules document is verified when it loads. The built-in rules
// were verified when they were built (tests/unit/test_ruleset_rules.cpp loads
// rules/ from a directory, fully): at run time their regexes are compiled
// when first used and their examples are not matched again, which keeps them
// out of every command's start-up. Files a user gives are verified in full.
enum class Check { full, built_in };

// Walks a rules document, naming file and key in every error.
class Reader {
public:
    Reader(std::string file, const json& node, Check check = Check::full, std::string path = {})
        : m_file(std::move(file)), m_node(node), m_check(check), m_path(std::move(path))
    {}

    [[noreturn]] void fail(const std::string& key, const std::string& what) const
    {
        throw Error(fmt::format("rules file {}: {}: {}", m_file, join(key), what));
    }

    [[nodiscard]] Reader child(const std::string& key) const
    {
        if (!m_node.is_object() || !m_node.contains(key)) {
            fail(key, "missing");
        }
        return Reader(m_file, m_node.at(key), m_check, join(key));
    }
    [[nodiscard]] Reader at(std::size_t i) const
    {
        return Reader(m_file, m_node.at(i), m_check, fmt::format("{}[{}]", m_path, i));
    }
    [[nodiscard]] bool has(const std::string& key) const
    {
        return m_node.is_object() && m_node.contains(key) && !m_node.at(key).is_null();
    }
    [[nodiscard]] const json& node() const { return m_node; }
    [[nodiscard]] const std::string& file() const { return m_file; }
    [[nodiscard]] bool verifies() const { return m_check == Check::full; }

    [[nodiscard]] double number(const std::string& key) const
    {
        const auto& v = child(key).m_node;
        if (!v.is_number()) {
            fail(key, fmt::format("expected a number, found {}", v.type_name()));
        }
        return v.get<double>();
    }
    [[nodiscard]] double non_negative(const std::string& key) const
    {
        const double v = number(key);
        if (v < 0) {
            fail(key, fmt::format("expected a number >= 0, found {}", v));
        }
        return v;
    }
    [[nodiscard]] std::int64_t integer(const std::string& key, std::int64_t min) const
    {
        const auto& v = child(key).m_node;
        if (!v.is_number_integer() || v.get<std::int64_t>() < min) {
            fail(key, fmt::format("expected an integer >= {}, found {}", min, v.dump()));
        }
        return v.get<std::int64_t>();
    }
    [[nodiscard]] std::string string(const std::string& key) const
    {
        const auto& v = child(key).m_node;
        if (!v.is_string() || v.get<std::string>().empty()) {
            fail(key, "expected a non-empty string");
        }
        return v.get<std::string>();
    }
    [[nodiscard]] bool boolean(const std::string& key) const
    {
        const auto& v = child(key).m_node;
        if (!v.is_boolean()) {
            fail(key, "expected true or false");
        }
        return v.get<bool>();
    }
    [[nodiscard]] Reader array(const std::string& key) const
    {
        auto r = child(key);
        if (!r.m_node.is_array()) {
            fail(key, "expected an array");
        }
        return r;
    }
    // Calls f with a Reader of each element of the array under `key`.
    template <class F> void each(const std::string& key, F&& f) const
    {
        const Reader list = array(key);
        for (std::size_t i = 0; i < list.m_node.size(); ++i) {
            f(list.at(i));
        }
    }

    // Every fact carries "source" and "as_of" (YYYY-MM-DD); "confidence" is
    // "documented" (default) or "second-hand".
    [[nodiscard]] Provenance provenance() const
    {
        Provenance p;
        p.source = string("source");
        p.as_of = date("as_of");
        if (has("confidence")) {
            const std::string c = string("confidence");
            if (c != "documented" && c != "second-hand" && c != "measured" && c != "assumed") {
                fail("confidence",
                     "expected \"documented\", \"measured\", \"second-hand\" or \"assumed\"");
            }
            p.certain = c == "documented" || c == "measured";
        }
        return p;
    }
    [[nodiscard]] std::string date(const std::string& key) const
    {
        std::string d = string(key);
        static const re2::RE2 k_date(R"(\d{4}-\d{2}-\d{2})");
        if (!re2::RE2::FullMatch(d, k_date)) {
            fail(key, fmt::format("expected a date YYYY-MM-DD, found \"{}\"", d));
        }
        return d;
    }

    template <typename T> Sourced<T> sourced(const std::string& key) const
    {
        const Reader r = child(key);
        Sourced<T> s;
        if constexpr (std::is_same_v<T, bool>) {
            s.value = r.boolean("value");
        } else if constexpr (std::is_integral_v<T>) {
            s.value = static_cast<T>(r.integer("value", 0));
        } else {
            s.value = r.non_negative("value");
        }
        s.provenance = r.provenance();
        return s;
    }

    [[nodiscard]] ModelPattern pattern(const std::string& key) const
    {
        ModelPattern p(string(key));
        if (verifies() && !p.ok()) {
            fail(key, fmt::format("invalid RE2 pattern: {}", p.error()));
        }
        return p;
    }

    [[nodiscard]] std::string join(const std::string& key) const
    {
        return m_path.empty() ? key : m_path + "." + key;
    }

private:
    std::string m_file;
    const json& m_node;
    Check m_check;
    std::string m_path;
};

Level
parse_level(const Reader& r, const std::string& key)
{
    const std::string s = r.string(key);
    if (s == "tools") {
        return Level::tools;
    }
    if (s == "system") {
        return Level::system;
    }
    if (s == "messages") {
        return Level::messages;
    }
    r.fail(key, fmt::format("expected \"tools\", \"system\" or \"messages\", found \"{}\"", s));
}

void
check_schema(const Reader& r)
{
    if (r.integer("schema_version", 1) != 1) {
        r.fail("schema_version", "this cachewise reads schema_version 1");
    }
}

// A rules file's struct, begun: its schema checked and its file named.
template <typename T>
T
opened(const Reader& r)
{
    check_schema(r);
    T t;
    t.file = r.file();
    return t;
}

// The facts each provider's simulator and checks read; a rules file that
// lacks one fails at load time, not in the middle of an audit.
std::vector<std::string_view>
required_facts(std::string_view provider)
{
    if (provider == "anthropic" || provider == "bedrock") {
        return {"max_breakpoints",
                "lookback_positions",
                "tool_runs_count_as_one_position",
                "ttl_seconds.5m",
                "ttl_seconds.1h",
                "price_multipliers.write_5m",
                "price_multipliers.write_1h",
                "price_multipliers.read"};
    }
    if (provider == "openai") {
        return {"max_breakpoints", "considered_breakpoints",  "hit_step_tokens",
                "ttl_seconds.30m", "ttl_seconds.in_memory",   "ttl_seconds.in_memory_max",
                "ttl_seconds.24h", "price_multipliers.write", "price_multipliers.read"};
    }
    if (provider == "deepseek") {
        return {"unit_tokens", "interval_tokens", "ttl_seconds.default"};
    }
    if (provider == "gemini") {
        return {"hit_step_tokens", "ttl_seconds.implicit", "ttl_seconds.explicit_default"};
    }
    return {"block_size", "full_blocks_only", "recompute_last_token"}; // serving engines
}

// A fact: {"value": number | true/false | "label", "source": ..., "as_of": ...}.
void
parse_fact(const Reader& r, const std::string& key, const std::string& name, ProviderRules& p)
{
    const Reader f = r.child(key);
    const auto& v = f.child("value").node();
    if (name == "eviction") { // the only fact that is a word
        p.labels[name] = Sourced<std::string>{f.string("value"), f.provenance()};
        return;
    }
    if (!v.is_number() && !v.is_boolean()) {
        f.fail("value", fmt::format("expected a number or true/false, found {}", v.type_name()));
    }
    Sourced<double> s;
    s.value = v.is_boolean() ? (v.get<bool>() ? 1.0 : 0.0) : f.non_negative("value");
    s.provenance = f.provenance();
    p.facts[name] = s;
}

// Members of a provider file that are not facts.
bool
is_structural_key(std::string_view key)
{
    return key == "schema_version" || key == "provider" || key == "about" ||
           key == "usage_schema" || key == "render_order" || key == "render_order_source" ||
           key == "breakpoint_models" || key == "thinking_kept_models" ||
           key == "minimum_cacheable_tokens" || key == "invalidation" || key == "ttl_seconds" ||
           key == "price_multipliers";
}

// usage_schema: which totals a provider's usage counts the cache in.
void
parse_usage_schema(const Reader& r, ProviderRules& p)
{
    const Reader u = r.child("usage_schema");
    const std::string schema = u.string("value");
    if (schema != "exclusive" && schema != "inclusive") {
        u.fail("value", "expected \"exclusive\" or \"inclusive\"");
    }
    p.usage_schema = {schema == "inclusive" ? UsageSchema::inclusive : UsageSchema::exclusive,
                      u.provenance()};
}

// render_order: the three levels in the order a request renders them.
void
parse_render_order(const Reader& r, ProviderRules& p)
{
    if (r.has("render_order")) {
        const Reader order = r.array("render_order");
        for (std::size_t i = 0; i < order.node().size(); ++i) {
            if (!order.node()[i].is_string()) {
                order.fail(fmt::format("[{}]", i), "expected a level name");
            }
            json wrapper = {{"level", order.node()[i]}};
            p.render_order.push_back(parse_level(
                Reader(r.file(), wrapper, Check::full, order.join(fmt::format("[{}]", i))),
                "level"));
        }
        if (p.render_order.size() != 3) {
            r.fail("render_order", "expected the three levels tools, system and messages");
        }
        p.render_order_provenance = r.child("render_order_source").provenance();
    }
}

// The provider's facts, at the top level and in the ttl_seconds and
// price_multipliers groups; the ones every provider of its kind must state.
void
parse_facts(const Reader& r, ProviderRules& p)
{
    for (const auto& [key, value] : r.node().items()) {
        if (is_structural_key(key)) {
            continue;
        }
        parse_fact(r, key, key, p);
    }
    for (const auto* group : {"ttl_seconds", "price_multipliers"}) {
        if (!r.has(group)) {
            continue;
        }
        const Reader g = r.child(group);
        if (!g.node().is_object()) {
            r.fail(group, "expected an object of facts");
        }
        for (const auto& [key, value] : g.node().items()) {
            parse_fact(g, key, fmt::format("{}.{}", group, key), p);
        }
    }
    for (const auto name : required_facts(p.name)) {
        if (!p.has(name) && p.labels.find(name) == p.labels.end()) {
            r.fail(std::string(name), "missing");
        }
    }
    if (p.name == "openai" && !p.breakpoint_models) {
        r.fail("breakpoint_models", "missing");
    }
}

// The per-model minimums and the invalidation table.
void
parse_provider_tables(const Reader& r, ProviderRules& p)
{
    if (r.has("minimum_cacheable_tokens")) {
        const Reader mins = r.child("minimum_cacheable_tokens");
        p.default_minimum_tokens = mins.sourced<std::int64_t>("default");
        mins.each("models", [&](const Reader& m) {
            p.minimums.push_back(
                MinimumRule{m.pattern("pattern"), m.integer("value", 1), m.provenance()});
        });
    }
    if (r.has("invalidation")) {
        r.each("invalidation", [&](const Reader& m) {
            InvalidationRule rule;
            rule.param = m.string("param");
            rule.level = parse_level(m, "invalidates_from");
            rule.note = m.has("note") ? m.string("note") : "";
            rule.provenance = m.provenance();
            p.invalidation.push_back(std::move(rule));
        });
    }
}

ProviderRules
parse_provider(const Reader& r, std::string_view expected_name)
{
    auto p = opened<ProviderRules>(r);
    p.name = r.string("provider");
    if (p.name != expected_name) {
        r.fail("provider", fmt::format("expected \"{}\" (the file's name)", expected_name));
    }
    parse_usage_schema(r, p);
    parse_render_order(r, p);
    if (r.has("breakpoint_models")) {
        p.breakpoint_models = r.child("breakpoint_models").pattern("pattern");
        (void)r.child("breakpoint_models").provenance();
    }
    if (r.has("thinking_kept_models")) {
        p.thinking_kept_models = r.child("thinking_kept_models").pattern("pattern");
        (void)r.child("thinking_kept_models").provenance();
    }
    parse_facts(r, p);
    parse_provider_tables(r, p);
    return p;
}

PriceSet
parse_prices(const Reader& r)
{
    PriceSet s;
    s.input = r.non_negative("input");
    s.output = r.non_negative("output");
    s.write_5m = r.non_negative("write_5m");
    s.write_1h = r.non_negative("write_1h");
    s.read = r.non_negative("read");
    return s;
}

Pricing
parse_pricing(const Reader& r)
{
    auto pricing = opened<Pricing>(r);
    pricing.currency = r.string("currency");
    r.each("models", [&](const Reader& m) {
        ModelPricing mp{m.string("name"), m.pattern("pattern"), {}};
        const Reader periods = m.array("prices");
        if (periods.node().empty()) {
            m.fail("prices", "expected at least one price period");
        }
        for (std::size_t k = 0; k < periods.node().size(); ++k) {
            const Reader pr = periods.at(k);
            PricePeriod period;
            if (pr.has("effective_from")) {
                period.effective_from = pr.date("effective_from");
            }
            period.prices = parse_prices(pr);
            if (pr.has("long_prompt")) {
                const Reader lp = pr.child("long_prompt");
                period.long_prompt_above = lp.integer("above_input_tokens", 1);
                period.long_prompt_prices = parse_prices(lp);
            }
            if (pr.has("peak")) {
                const Reader peak = pr.child("peak");
                const Reader hours = peak.array("hours_utc");
                for (std::size_t h = 0; h < hours.node().size(); ++h) {
                    const auto& range = hours.node()[h];
                    // Hours, whole or in minutes (DeepSeek's 2025 window ran
                    // 00:30-16:30): kept as minutes of the day.
                    const auto minutes = [&range](std::size_t end) {
                        const double total = range[end].get<double>() * 60;
                        return total == std::floor(total) ? static_cast<int>(total) : -1;
                    };
                    if (!range.is_array() || range.size() != 2 || !range[0].is_number() ||
                        !range[1].is_number() || minutes(0) < 0 || minutes(1) > 24 * 60 ||
                        minutes(0) >= minutes(1)) {
                        hours.fail(fmt::format("[{}]", h),
                                   "expected [from, to) hours with 0 <= from < to <= 24, in "
                                   "whole minutes (0.5 is 00:30)");
                    }
                    period.peak_minutes_utc.emplace_back(minutes(0), minutes(1));
                }
                period.peak_prices = parse_prices(peak);
            }
            period.provenance = pr.provenance();
            mp.periods.push_back(std::move(period));
        }
        std::stable_sort(mp.periods.begin(), mp.periods.end(), [](const auto& a, const auto& b) {
            return a.effective_from.value_or("") < b.effective_from.value_or("");
        });
        pricing.models.push_back(std::move(mp));
    });
    return pricing;
}

TokenRules
parse_tokens(const Reader& r)
{
    auto t = opened<TokenRules>(r);
    const Reader e = r.child("estimator");
    t.letters_free = e.sourced<double>("letters_free");
    t.letters_per_extra_token = e.sourced<double>("letters_per_extra_token");
    t.digits_per_token = e.sourced<double>("digits_per_token");
    t.punctuation_per_token = e.sourced<double>("punctuation_per_token");
    t.repeated_punctuation_per_token = e.sourced<double>("repeated_punctuation_per_token");
    t.whitespace_run_tokens = e.sourced<double>("whitespace_run_tokens");
    t.cjk_tokens_per_char = e.sourced<double>("cjk_tokens_per_char");
    t.other_tokens_per_char = e.sourced<double>("other_tokens_per_char");
    const Reader o = r.child("overheads");
    t.block_overhead = o.sourced<double>("block");
    t.message_overhead = o.sourced<double>("message");
    t.tool_overhead = o.sourced<double>("tool");
    t.image_tokens = o.sourced<double>("image");
    t.tool_use_system_prompt = o.sourced<double>("tool_use_system_prompt");
    t.thinking_system_prompt = o.sourced<double>("thinking_system_prompt");
    t.document_base64_bytes_per_token = o.sourced<double>("document_base64_bytes_per_token");
    t.error_band_percent = r.sourced<double>("error_band_percent");
    for (const auto* key :
         {"letters_per_extra_token", "digits_per_token", "punctuation_per_token"}) {
        if (e.child(key).number("value") <= 0) {
            e.child(key).fail("value", "must be greater than 0");
        }
    }
    if (t.document_base64_bytes_per_token.value <= 0) {
        o.child("document_base64_bytes_per_token").fail("value", "must be greater than 0");
    }
    r.each("model_multipliers", [&](const Reader& m) {
        const double v = m.non_negative("value");
        if (v <= 0) {
            m.fail("value", "must be greater than 0");
        }
        t.model_multipliers.push_back({m.pattern("pattern"), v, m.provenance()});
    });
    return t;
}

// An optional array of strings.
std::vector<std::string>
string_list(const Reader& r, const std::string& key)
{
    std::vector<std::string> out;
    if (!r.has(key)) {
        return out;
    }
    const Reader list = r.array(key);
    for (std::size_t k = 0; k < list.node().size(); ++k) {
        if (!list.node()[k].is_string()) {
            r.fail(fmt::format("{}[{}]", key, k), "expected a string");
        }
        out.push_back(list.node()[k].get<std::string>());
    }
    return out;
}

// A pattern compiles, matches each of its examples and none of its
// counter-examples.
void
verify_examples(const Reader& p, const DynamicFieldPattern& d)
{
    const re2::RE2 re(d.pattern, re2::RE2::Quiet);
    if (!re.ok()) {
        p.fail("pattern", fmt::format("invalid RE2 pattern: {}", re.error()));
    }
    for (std::size_t k = 0; k < d.examples.size(); ++k) {
        if (!re2::RE2::PartialMatch(d.examples[k], re)) {
            p.fail(fmt::format("examples[{}]", k), "does not match the pattern");
        }
    }
    for (const auto& [key, context] : {std::pair{"not_preceded_by", d.not_preceded_by},
                                       {"not_followed_by", d.not_followed_by}}) {
        const re2::RE2 around(context, re2::RE2::Quiet);
        if (!context.empty() && !around.ok()) {
            p.fail(key, fmt::format("invalid RE2 pattern: {}", around.error()));
        }
    }
    // With a context, the pattern itself may match a counter-example that
    // the context then excludes: analysis::DynamicFieldMatcher checks those.
    const bool context = !d.not_preceded_by.empty() || !d.not_followed_by.empty();
    for (std::size_t k = 0; k < d.counter_examples.size() && !context; ++k) {
        if (re2::RE2::PartialMatch(d.counter_examples[k], re)) {
            p.fail(fmt::format("counter_examples[{}]", k),
                   "matches the pattern, but a counter-example must not");
        }
    }
}

// Appends the patterns of one dynamic-fields document; every pattern must
// compile, match each of its examples and none of its counter-examples.
void
parse_dynamic_fields(const Reader& r, DynamicFieldRules& out, bool entropy_required)
{
    check_schema(r);
    r.each("patterns", [&](const Reader& p) {
        DynamicFieldPattern d;
        d.name = p.string("name");
        d.kind = p.string("kind");
        d.pattern = p.string("pattern");
        d.announces = p.has("announces") && p.boolean("announces");
        d.fallback = p.has("fallback") && p.boolean("fallback");
        d.not_preceded_by = p.has("not_preceded_by") ? p.string("not_preceded_by") : "";
        d.not_followed_by = p.has("not_followed_by") ? p.string("not_followed_by") : "";
        d.file = r.file();
        const Reader examples = p.array("examples");
        if (examples.node().empty()) {
            p.fail("examples", "expected at least one example");
        }
        for (std::size_t k = 0; k < examples.node().size(); ++k) {
            if (!examples.node()[k].is_string()) {
                p.fail(fmt::format("examples[{}]", k), "expected a string");
            }
            d.examples.push_back(examples.node()[k].get<std::string>());
        }
        d.counter_examples = string_list(p, "counter_examples");
        if (p.verifies()) {
            verify_examples(p, d);
        }
        out.patterns.push_back(std::move(d));
    });
    if (entropy_required || r.has("entropy")) {
        const Reader e = r.child("entropy");
        out.entropy_min_length = static_cast<std::size_t>(e.integer("min_length", 8));
        out.entropy_min_bits_per_char = e.non_negative("min_bits_per_char");
        out.entropy_min_digits = static_cast<std::size_t>(e.integer("min_digits", 0));
        out.entropy_kind = e.string("kind");
        out.entropy_ignore_prefixes = string_list(e, "ignore_prefixes");
        out.entropy_examples = string_list(e, "examples");
        out.entropy_counter_examples = string_list(e, "counter_examples");
        out.entropy_file = r.file();
    }
}

void
parse_models(const Reader& r, Rules& out)
{
    check_schema(r);
    r.each("models", [&](const Reader& m) {
        ModelShape shape;
        shape.id = m.string("id");
        if (m.has("aliases")) {
            for (const auto& a : m.array("aliases").node()) {
                if (!a.is_string()) {
                    m.fail("aliases", "expected an array of strings");
                }
                shape.aliases.push_back(a.get<std::string>());
            }
        }
        shape.layers = static_cast<int>(m.integer("layers", 1));
        shape.hidden = static_cast<int>(m.integer("hidden", 1));
        shape.heads = static_cast<int>(m.integer("heads", 1));
        shape.kv_heads = static_cast<int>(m.integer("kv_heads", 1));
        shape.head_dim = static_cast<int>(m.integer("head_dim", 1));
        shape.v_head_dim =
            m.has("v_head_dim") ? static_cast<int>(m.integer("v_head_dim", 1)) : shape.head_dim;
        shape.ffn = static_cast<int>(m.integer("ffn", 1));
        shape.vocab = static_cast<int>(m.integer("vocab", 1));
        shape.non_embedding_params = m.non_negative("non_embedding_params");
        const std::string attention = m.string("attention");
        if (attention != "gqa" && attention != "mha" && attention != "mla") {
            m.fail("attention", "expected \"mha\", \"gqa\" or \"mla\"");
        }
        shape.mla = attention == "mla";
        if (shape.mla) {
            shape.kv_lora_rank = static_cast<int>(m.integer("kv_lora_rank", 1));
            shape.qk_rope_head_dim = static_cast<int>(m.integer("qk_rope_head_dim", 0));
        }
        if (m.has("sliding_window_layers")) {
            shape.sliding_window_layers = static_cast<int>(m.integer("sliding_window_layers", 0));
            shape.window = static_cast<int>(m.integer("window", 1));
            if (shape.sliding_window_layers > shape.layers) {
                m.fail("sliding_window_layers", "more than layers");
            }
        }
        if (shape.heads % shape.kv_heads != 0) {
            m.fail("kv_heads", "must divide heads");
        }
        shape.provenance = m.provenance();
        out.models.push_back(std::move(shape));
    });
}

void
parse_gpus(const Reader& r, Rules& out)
{
    check_schema(r);
    out.assumed_utilization = r.sourced<double>("assumed_utilization");
    if (out.assumed_utilization.value <= 0 || out.assumed_utilization.value > 1) {
        r.child("assumed_utilization").fail("value", "expected a share in (0, 1]");
    }
    r.each("gpus", [&](const Reader& g) {
        GpuSpec spec;
        spec.id = g.string("id");
        if (g.has("aliases")) {
            for (const auto& a : g.array("aliases").node()) {
                spec.aliases.push_back(a.get<std::string>());
            }
        }
        spec.bf16_tflops = g.non_negative("bf16_tflops");
        spec.fp16_tflops = g.non_negative("fp16_tflops");
        if (g.has("fp8_tflops")) {
            spec.fp8_tflops = g.non_negative("fp8_tflops");
        }
        spec.bandwidth_tbps = g.non_negative("bandwidth_tbps");
        spec.provenance = g.provenance();
        out.gpus.push_back(std::move(spec));
    });
}

json
parse_json(const std::string& file, std::string_view text)
{
    try {
        return json::parse(text);
    } catch (const json::parse_error& e) {
        // "[json.exception.parse_error.101] parse error at line 1, column 1: ..."
        // without the library's prefix: "at line 1, column 1: ...".
        const std::string_view what = e.what();
        const auto at = what.find(" at line ");
        throw Error(at != std::string_view::npos
                        ? fmt::format("rules file {}: not valid JSON {}", file, what.substr(at + 1))
                        : fmt::format("rules file {}: not valid JSON: {}", file, what));
    }
}

std::string
read_rule_file(const std::optional<std::string>& dir, std::string_view relative, std::string& label)
{
    if (!dir) {
        for (const auto& f : embedded_rule_files()) {
            if (f.path == relative) {
                label = fmt::format("rules/{} (built-in)", relative);
                return std::string(f.content);
            }
        }
        throw Error(fmt::format("built-in rules lack {}", relative));
    }
    const std::filesystem::path path = std::filesystem::path(*dir) / std::string(relative);
    label = path.string();
    const auto text = read_file(label);
    if (!text) {
        throw Error(fmt::format("rules file {}: cannot be read (--rules {} must hold every file "
                                "of the rules/ directory)",
                                label, *dir));
    }
    return *text;
}

} // namespace

std::shared_ptr<const Rules>
load_rules(const std::optional<std::string>& dir)
{
    auto rules = std::make_shared<Rules>();
    rules->origin = dir ? *dir : "built-in";
    const Check check = dir ? Check::full : Check::built_in;
    std::string label;
    for (const auto name : k_provider_names) {
        const std::string text = read_rule_file(dir, fmt::format("providers/{}.json", name), label);
        const json doc = parse_json(label, text);
        rules->providers.emplace(std::string(name),
                                 parse_provider(Reader(label, doc, check), name));
    }
    {
        const std::string text = read_rule_file(dir, "pricing.json", label);
        const json doc = parse_json(label, text);
        rules->pricing = parse_pricing(Reader(label, doc, check));
    }
    {
        const std::string text = read_rule_file(dir, "tokens.json", label);
        const json doc = parse_json(label, text);
        rules->tokens = parse_tokens(Reader(label, doc, check));
    }
    {
        const std::string text = read_rule_file(dir, "models.json", label);
        parse_models(Reader(label, parse_json(label, text), check), *rules);
    }
    {
        const std::string text = read_rule_file(dir, "gpus.json", label);
        parse_gpus(Reader(label, parse_json(label, text), check), *rules);
    }
    {
        const std::string text = read_rule_file(dir, "dynamic-fields.json", label);
        const json doc = parse_json(label, text);
        parse_dynamic_fields(Reader(label, doc, check), rules->dynamic_fields, true);
    }
    return rules;
}

namespace {

bool
same_name(std::string_view a, std::string_view b)
{
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) ==
                      std::tolower(static_cast<unsigned char>(y));
           });
}

template <typename T>
const T*
find_named(const std::vector<T>& list, std::string_view name)
{
    for (const auto& item : list) {
        if (same_name(item.id, name) ||
            std::any_of(item.aliases.begin(), item.aliases.end(),
                        [&](const auto& a) { return same_name(a, name); })) {
            return &item;
        }
    }
    return nullptr;
}

} // namespace

const ModelShape*
Rules::find_model(std::string_view name) const
{
    return find_named(models, name);
}

const GpuSpec*
Rules::find_gpu(std::string_view name) const
{
    return find_named(gpus, name);
}

void
add_prices(Pricing& pricing, const std::string& path)
{
    const json doc = parse_json(path, value_or_throw(read_file(path), ""));
    Pricing overlay = parse_pricing(Reader(path, doc));
    if (overlay.currency != pricing.currency) {
        throw Error(fmt::format("rules file {}: currency: expected \"{}\", found \"{}\"", path,
                                pricing.currency, overlay.currency));
    }
    overlay.models.insert(overlay.models.end(), pricing.models.begin(), pricing.models.end());
    pricing.models = std::move(overlay.models);
}

void
add_dynamic_fields(DynamicFieldRules& rules, const std::string& path)
{
    const json doc = parse_json(path, value_or_throw(read_file(path), ""));
    parse_dynamic_fields(Reader(path, doc), rules, false);
}

} // namespace cachewise::ruleset
