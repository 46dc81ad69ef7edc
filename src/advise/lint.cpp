#include "advise/lint.hpp"

#include "advise/placement.hpp"
#include "analysis/divergence.hpp"
#include "analysis/dynamic_fields.hpp"
#include "analysis/rule_catalogue.hpp"
#include "analysis/secrets.hpp"
#include "analysis/segment_text.hpp"
#include "ingest/block_kinds.hpp"
#include "model/breakpoints.hpp"
#include "model/display_text.hpp"
#include "model/tokens.hpp"
#include "util/error.hpp"
#include "util/escape.hpp"
#include "util/file.hpp"
#include "util/format.hpp"
#include "util/source_map.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <re2/re2.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <unordered_map>

namespace cachewise::advise {

using analysis::Finding;
using model::Request;
using model::Segment;

namespace {

// The JSON path of the string a segment's display text comes from, or of
// the segment itself when its text is its canonical JSON.
std::string
text_path(const Segment& s)
{
    std::string base = s.path.str(); // not const: returned, so moved
    if (s.path.whole_content) {
        return base; // "system", "messages[0].content": the string itself
    }
    switch (s.kind) {
    case model::SegmentKind::text:
        return base + ".text";
    case model::SegmentKind::thinking:
        return base + ".thinking";
    case model::SegmentKind::tool_result:
        return base + ".content";
    default:
        return base;
    }
}

} // namespace

const ruleset::MinimumRule*
strictest_minimum(const ruleset::Rules& rules, std::string_view provider)
{
    const ruleset::MinimumRule* best = nullptr;
    for (const auto& rule : rules.provider(provider).minimums) {
        const bool plain = rule.pattern.text().find_first_of("()[]|?*+\\.^$") == std::string::npos;
        if (plain && (best == nullptr || rule.tokens > best->tokens)) {
            best = &rule;
        }
    }
    return best;
}

namespace {

// Levenshtein distance, for a "did you mean" among a few dozen short names.
std::size_t
edit_distance(std::string_view a, std::string_view b)
{
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) {
        row[j] = j;
    }
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diagonal = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t above = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1])});
            diagonal = above;
        }
    }
    return row[b.size()];
}

// The names a model pattern lists, when it lists a few: literals, sets of
// characters ("[56]", "[6-9]"), groups of alternatives and '?' after either
// ("claude-opus-4-[56]", "claude-opus-4(-1)?"), less an optional tail of
// any text ("(-.*)?", a dated or preview variant). Nothing for a pattern with
// any other repeat or wildcard, which names no model in particular.
class PatternNames {
public:
    static std::vector<std::string> of(std::string_view pattern)
    {
        // A tail any text may follow ("gemini-2-5-flash(-.*)?"): the names
        // without it.
        std::string text(pattern);
        for (const std::string_view tail : {"(-.*)?", "(.*)?"}) {
            for (auto at = text.find(tail); at != std::string::npos; at = text.find(tail)) {
                text.erase(at, tail.size());
            }
        }
        PatternNames p(text);
        auto names = p.alternatives();
        if (p.m_failed || p.m_at != text.size()) {
            return {};
        }
        return names;
    }

private:
    static constexpr std::size_t k_most = 64;
    explicit PatternNames(std::string_view pattern) : m_text(pattern) {}

    std::vector<std::string> alternatives()
    {
        auto names = sequence();
        while (!m_failed && m_at < m_text.size() && m_text[m_at] == '|') {
            ++m_at;
            auto more = sequence();
            names.insert(names.end(), more.begin(), more.end());
        }
        return names;
    }
    std::vector<std::string> sequence()
    {
        std::vector<std::string> names{""};
        while (!m_failed && m_at < m_text.size() && m_text[m_at] != '|' && m_text[m_at] != ')') {
            auto choices = atom();
            if (m_at < m_text.size() && m_text[m_at] == '?') {
                ++m_at;
                choices.emplace_back();
            }
            std::vector<std::string> joined;
            for (const auto& head : names) {
                for (const auto& tail : choices) {
                    joined.push_back(head + tail);
                }
            }
            names = std::move(joined);
            m_failed = m_failed || names.size() > k_most;
        }
        return names;
    }
    std::vector<std::string> atom()
    {
        const char c = m_text[m_at++];
        if (c == '(') {
            auto inner = alternatives();
            m_failed = m_failed || m_at >= m_text.size() || m_text[m_at++] != ')';
            return inner;
        }
        if (c == '[') {
            std::vector<std::string> set;
            for (; m_at < m_text.size() && m_text[m_at] != ']'; ++m_at) {
                const bool range =
                    m_at + 2 < m_text.size() && m_text[m_at + 1] == '-' && m_text[m_at + 2] != ']';
                const char last = range ? m_text[m_at + 2] : m_text[m_at];
                for (char x = m_text[m_at]; x <= last; ++x) {
                    set.emplace_back(1, x);
                }
                m_at += range ? 2 : 0;
            }
            m_failed = m_failed || m_at++ >= m_text.size();
            return set;
        }
        m_failed = m_failed || std::string_view("*+.\\^${}").find(c) != std::string_view::npos;
        return {std::string(1, c)};
    }

    std::string_view m_text;
    std::size_t m_at = 0;
    bool m_failed = false;
};

} // namespace

std::string
unlisted_model_warning(const ruleset::Rules& rules, const model::Request& request)
{
    const auto& provider = rules.provider(request.provider);
    const auto minimum = provider.minimum_tokens(request.model);
    if (minimum.known_model) {
        return {};
    }
    // Compared without separators: "claude-opus-45" is claude-opus-4-5, not
    // claude-opus-5, though one edit from each.
    const auto bare = [](std::string_view name) {
        std::string out;
        std::copy_if(name.begin(), name.end(), std::back_inserter(out),
                     [](char c) { return c != '-' && c != '.' && c != '_'; });
        return out;
    };
    // Other digits are another version ("claude-3-5-sonnet" is not
    // claude-sonnet-5-5), not a typo.
    const auto digits = [](std::string_view name) {
        std::string out;
        std::copy_if(name.begin(), name.end(), std::back_inserter(out),
                     [](char c) { return c >= '0' && c <= '9'; });
        return out;
    };
    const std::string id = bare(ruleset::normalize_model_id(request.model));
    std::string closest;
    std::size_t best = 3; // more edits than this is another model, not a typo
    for (const auto& rule : provider.minimums) {
        for (const auto& name : PatternNames::of(rule.pattern.text())) {
            if (digits(name) != digits(id)) {
                continue;
            }
            if (const std::size_t d = edit_distance(id, bare(name)); d < best) {
                best = d;
                closest = name;
            }
        }
    }
    const auto* strictest = strictest_minimum(rules, request.provider);
    return fmt::format(
        "model \"{}\" is not listed in rules/providers/{}.json{}: its minimum is assumed, "
        "{}'s default of {} tokens{}",
        request.model, request.provider,
        closest.empty() ? "" : fmt::format(" (did you mean {}?)", closest), request.provider,
        group_digits(minimum.tokens),
        strictest == nullptr
            ? ""
            : fmt::format(" (the strictest listed is {}, {})", group_digits(strictest->tokens),
                          strictest->pattern.text()));
}

class Linter::Impl {
public:
    Impl(const ruleset::Rules& rules, const LintOptions& options)
        : m_rules(rules), m_options(options),
          m_matcher_owned(template_matcher(rules, options.placeholders)),
          m_matcher(*m_matcher_owned), m_estimator(rules.tokens)
    {}

    void file(const LintInput& input, std::vector<Finding>& out)
    {
        m_map = SourceMap::build(input.text);
        m_text = &input.text;
        m_path = input.path;
        m_texts = &input.texts;
        check(input.request, out);
        m_map.reset();
        m_text = nullptr;
    }

private:
    Finding make(std::string_view rule, const Request& r, const Segment* s,
                 std::optional<std::size_t> offset)
    {
        Finding f = analysis::make_finding(rule);
        f.request = r.id;
        f.file = m_path;
        if (s != nullptr) {
            f.location.path = s->path.str();
            f.location.offset = offset;
            f.location.token = s->cumulative_tokens - s->tokens;
            locate(f, *s, offset.value_or(0));
        }
        return f;
    }

    void locate(Finding& f, const Segment& s, std::size_t offset)
    {
        if (!m_map) {
            return;
        }
        std::optional<std::size_t> byte = m_map->string_offset(text_path(s), offset);
        if (!byte && offset > 0) {
            byte = inner_string_offset(s, offset);
        }
        if (!byte) {
            if (const auto* span = m_map->find(s.path.str())) {
                byte = span->begin;
            }
        }
        if (byte) {
            const auto lc = m_map->line_column(*byte);
            f.line = lc.line;
            f.column = lc.column;
        }
    }

    // A finding about a marker points at it ("cache_control", OpenAI's
    // "prompt_cache_breakpoint", or the top-level automatic one), not at the
    // block's text; a Converse cachePoint, a block of its own, keeps the
    // place of the block it follows.
    void point_at_marker(Finding& f, const model::Breakpoint& bp, const Request& r)
    {
        const std::string block = r.segments[bp.segment].path.str();
        if (bp.automatic) {
            point_at(f, "cache_control");
        } else if (!point_at(f, block + ".cache_control")) {
            point_at(f, block + ".prompt_cache_breakpoint");
        }
    }

    // The finding's line and column: where the value at `path` begins.
    // False when the document has no such value.
    bool point_at(Finding& f, const std::string& path)
    {
        const auto* span = m_map ? m_map->find(path) : nullptr;
        if (span == nullptr) {
            return false;
        }
        const auto lc = m_map->line_column(span->begin);
        f.line = lc.line;
        f.column = lc.column;
        return true;
    }

    // A segment that is a JSON object (a tool definition) shows its
    // canonical rendering: the string value that holds its character
    // `offset` there is found by path in the document, and the same
    // character of it.
    std::optional<std::size_t> inner_string_offset(const Segment& s, std::size_t offset) const
    {
        const auto rendered = m_texts->get(s.content);
        if (!rendered) {
            return std::nullopt;
        }
        const std::string text = model::display_text(*rendered, s.kind);
        const auto inner = SourceMap::build(text, s.path.str());
        if (!inner) {
            return std::nullopt;
        }
        std::size_t byte = 0;
        for (std::size_t chars = 0; chars < offset && byte < text.size(); ++chars) {
            do {
                ++byte;
            } while (byte < text.size() && (static_cast<unsigned char>(text[byte]) & 0xC0) == 0x80);
        }
        const std::string path = inner->path_at(byte);
        const auto chars = inner->string_chars_before(path, byte);
        return chars ? m_map->string_offset(path, *chars) : std::nullopt;
    }

    void emit(std::vector<Finding>& out, Finding f)
    {
        if (!m_options.disabled.contains(f.rule)) {
            out.push_back(std::move(f));
        }
    }

    // What every rule of one request needs: its provider's breakpoint rules,
    // minimum and the estimator's error band, and its breakpoints in order.
    struct Subject {
        const Request& r;
        const ruleset::ProviderRules& provider;
        bool anthropic = false;          // the breakpoint rules CW011-CW016 apply
        bool openai_breakpoints = false; // GPT-5.6+: a minimum, and CW011 in explicit mode
        ruleset::MinimumLookup minimum;
        bool exact = false; // every logged segment counted by the model's tokenizer
        double band = 0;    // the estimate's error band; 0 when exact
        std::vector<model::Breakpoint> bps;
        std::optional<std::size_t> last; // the last breakpoint's segment
    };

    Subject subject_of(const Request& r) const
    {
        // The breakpoint rules (CW011-CW016) are Anthropic's and Bedrock's;
        // OpenAI's GPT-5.6+ breakpoints have only a minimum; the other
        // providers cache automatically. Dynamic fields matter to every one.
        const auto& provider = m_rules.provider(r.provider);
        const bool anthropic = r.provider == "anthropic" || r.provider == "bedrock";
        const bool openai_breakpoints =
            r.provider == "openai" && provider.uses_breakpoints(r.billed_model());
        const bool exact = model::counted_exactly(r);
        Subject x{.r = r,
                  .provider = provider,
                  .anthropic = anthropic,
                  .openai_breakpoints = openai_breakpoints,
                  .minimum = provider.minimum_tokens(r.model),
                  .exact = exact,
                  .band = exact ? 0.0 : m_estimator.error_band(),
                  .bps = anthropic || openai_breakpoints ? model::breakpoints(r)
                                                         : std::vector<model::Breakpoint>{},
                  .last = std::nullopt};
        for (const auto& bp : x.bps) {
            x.last = std::max(x.last.value_or(0), bp.segment);
        }
        return x;
    }

    void check(const Request& r, std::vector<Finding>& out)
    {
        const Subject x = subject_of(r);
        check_rejected(x, out);
        check_unwritten(x, out);
        check_not_allowed(x, out);
        check_unknown_types(r, out);
        check_minimum(x, out);
        check_lookback(x, out);
        const auto stable_ends = check_dynamic(x, out);
        check_secrets(x, out);
        check_no_breakpoint(x, stable_ends, out);
    }

    // CW013, CW014: the API would reject the request.
    void check_rejected(const Subject& x, std::vector<Finding>& out)
    {
        const Request& r = x.r;
        const auto& bps = x.bps;
        const auto& provider = x.provider;
        const bool anthropic = x.anthropic;
        const auto max = anthropic ? provider.integer("max_breakpoints") : 0;
        // Automatic caching (rules §1.4): "If 4 explicit block-level
        // breakpoints already exist, the API returns a 400 error", even where
        // the automatic one would fall on a marked block (a no-op otherwise).
        const auto explicit_markers =
            std::count_if(r.segments.begin(), r.segments.end(),
                          [](const model::Segment& s) { return s.cache_control.has_value(); });
        const bool automatic_over = anthropic && r.auto_cache_control && explicit_markers >= max;
        if (anthropic && (static_cast<int>(bps.size()) > max || automatic_over)) {
            Finding f = make(analysis::rule::k_too_many_breakpoints, r,
                             &r.segments[bps.back().segment], std::nullopt);
            // Over with the automatic one: the top-level marker is refused.
            point_at_marker(f, model::Breakpoint{bps.back().segment, {}, automatic_over}, r);
            f.message =
                automatic_over && static_cast<int>(bps.size()) <= max
                    ? fmt::format("{} explicit cache breakpoints and a top-level cache_control: "
                                  "with {} block-level breakpoints already set, the API rejects "
                                  "the request (400)",
                                  explicit_markers, max)
                    : fmt::format("{} cache breakpoints{}; the API allows {} and rejects the "
                                  "request",
                                  bps.size(),
                                  r.auto_cache_control ? " (the automatic one included)" : "", max);
            emit(out, std::move(f));
        }
        for (std::size_t i = 0; anthropic && i < bps.size(); ++i) {
            for (std::size_t j = i + 1; j < bps.size(); ++j) {
                const bool same_block = bps[i].segment == bps[j].segment &&
                                        !(bps[i].cache_control == bps[j].cache_control);
                const bool order = bps[i].segment < bps[j].segment &&
                                   bps[i].cache_control.ttl == model::Ttl::five_minutes &&
                                   bps[j].cache_control.ttl == model::Ttl::one_hour;
                if (same_block || order) {
                    Finding f = make(analysis::rule::k_ttl_order, r, &r.segments[bps[j].segment],
                                     std::nullopt);
                    point_at_marker(f, bps[j], r);
                    f.message =
                        same_block
                            ? "the automatic cache_control's TTL differs from the marker on the "
                              "same block; the API rejects the request"
                            : fmt::format("a 1h breakpoint at {} follows a 5m breakpoint at {}; "
                                          "longer TTLs must come first",
                                          r.segments[bps[j].segment].path.str(),
                                          r.segments[bps[i].segment].path.str());
                    emit(out, std::move(f));
                }
            }
        }
    }

    // CW018: OpenAI GPT-5.6+ "Each request can write up to four breakpoints"
    // (rules/providers/openai.json max_breakpoints): in explicit mode the
    // latest 4 explicit markers, in implicit mode the implicit one and the
    // latest 3. The API does not say it rejects more; the earlier ones are
    // not written, as the simulator replays them.
    void check_unwritten(const Subject& x, std::vector<Finding>& out)
    {
        if (!x.openai_breakpoints) {
            return;
        }
        const Request& r = x.r;
        std::vector<std::size_t> marked; // explicit markers' segments, in order
        for (const auto& b : x.bps) {
            if (!b.automatic) {
                marked.push_back(b.segment);
            }
        }
        const auto max = static_cast<std::size_t>(x.provider.integer("max_breakpoints"));
        const std::size_t written = r.explicit_mode ? max : max - 1;
        if (marked.size() <= written) {
            return;
        }
        const std::size_t unwritten = marked.size() - written;
        const Segment& last_unwritten = r.segments[marked[unwritten - 1]];
        Finding f = make(analysis::rule::k_unwritten_breakpoints, r, &last_unwritten, std::nullopt);
        point_at_marker(f, model::Breakpoint{marked[unwritten - 1], {}, false}, r);
        f.message = fmt::format(
            "{} prompt_cache_breakpoint markers; {} mode writes the latest {}{}: {} nothing",
            marked.size(), r.explicit_mode ? "explicit" : "implicit", written,
            r.explicit_mode ? "" : " beside the implicit one",
            unwritten == 1 ? fmt::format("the earliest, at {}, writes", last_unwritten.path.str())
                           : fmt::format("the earliest {}, up to {}, write", unwritten,
                                         last_unwritten.path.str()));
        emit(out, std::move(f));
    }

    // CW016: markers on blocks that cannot carry one.
    void check_not_allowed(const Subject& x, std::vector<Finding>& out)
    {
        const Request& r = x.r;
        const bool anthropic = x.anthropic;
        for (std::size_t k = 0; k < r.segments.size(); ++k) {
            const Segment& s = r.segments[k];
            if (anthropic && s.cache_control && !s.cache_control_allowed) {
                Finding f = make(analysis::rule::k_cache_control_not_allowed, r, &s, std::nullopt);
                point_at_marker(f, model::Breakpoint{k, {}, false}, r);
                f.message = fmt::format(
                    "{} is {} block, which cannot carry cache_control", s.path.str(),
                    with_article(s.kind == model::SegmentKind::text ? "empty text"
                                                                    : model::to_string(s.kind)));
                emit(out, std::move(f));
            }
        }
    }

    // CW019: a block, part or item whose type the API's table
    // (ingest/block_kinds.cpp) does not name: the readers take it as other
    // content, where the API would reject a typo ("txt") with a 400.
    void check_unknown_types(const Request& r, std::vector<Finding>& out)
    {
        using model::ApiFormat;
        using model::SegmentKind;
        for (const auto& s : r.segments) {
            if (s.path.level == model::Level::tools || s.path.cached) {
                continue;
            }
            // Content blocks that tool results hold: a Messages tool_result's
            // content, a Responses function_call_output's output; a Chat
            // tool message's parts are segments of their own.
            const bool result = s.kind == SegmentKind::tool_result;
            const char* inner = !result                                   ? nullptr
                                : r.format == ApiFormat::anthropic        ? "content"
                                : r.format == ApiFormat::openai_responses ? "output"
                                                                          : nullptr;
            const bool own_part =
                result && r.format == ApiFormat::openai_chat && !s.path.whole_content;
            if (s.kind != SegmentKind::other && inner == nullptr && !own_part) {
                continue;
            }
            const auto rendered = m_texts->get(s.content);
            if (!rendered) {
                continue;
            }
            const auto json = nlohmann::ordered_json::parse(*rendered, nullptr, false);
            if (inner == nullptr) {
                report_unknown_type(r, s, s.path.str(), type_named(json),
                                    ingest::vocabulary_of(r.format, s.path), out);
                continue;
            }
            const auto blocks = json.is_object() ? json.find(inner) : json.end();
            if (blocks == json.end() || !blocks->is_array()) {
                continue;
            }
            const auto vocabulary = r.format == ApiFormat::anthropic
                                        ? ingest::BlockVocabulary::anthropic_block
                                        : ingest::BlockVocabulary::openai_responses_part;
            for (std::size_t i = 0; i < blocks->size(); ++i) {
                report_unknown_type(r, s, fmt::format("{}.{}[{}]", s.path.str(), inner, i),
                                    type_named((*blocks)[i]), vocabulary, out);
            }
        }
    }

    void report_unknown_type(const Request& r, const Segment& s, const std::string& path,
                             const std::string& type, ingest::BlockVocabulary vocabulary,
                             std::vector<Finding>& out)
    {
        if (type.empty() || ingest::is_known_type(vocabulary, type)) {
            return;
        }
        Finding f = make(analysis::rule::k_unknown_type, r, &s, std::nullopt);
        f.location.path = path;
        point_at(f, path);
        f.message = fmt::format(
            "{} has type \"{}\", which cachewise does not know for {} ({}): if it is a typo, the "
            "API rejects the request; if the API added it, cachewise reads it as other content, "
            "its tokens estimated from its JSON",
            path, safe_text(type), ingest::object_name(vocabulary),
            ingest::known_types(vocabulary));
        emit(out, std::move(f));
    }

    // The type a block names: its "type" member, or else (a Gemini part, a
    // Converse block) its first member's name.
    static std::string type_named(const nlohmann::ordered_json& json)
    {
        if (!json.is_object() || json.empty()) {
            return {};
        }
        if (const auto it = json.find("type"); it != json.end()) {
            return it->is_string() ? it->get<std::string>() : std::string();
        }
        return json.begin().key();
    }

    // CW012: prefixes below the minimum, with the estimate's error band; an
    // exact count, when asked for, decides the undecided ones. A cache that
    // needs no breakpoint (OpenAI before GPT-5.6, Gemini's implicit cache,
    // DeepSeek) caches the whole prompt or nothing, as audit's simulators do.
    void check_minimum(const Subject& x, std::vector<Finding>& out)
    {
        std::vector<std::size_t> ends;
        for (const auto& bp : x.bps) {
            ends.push_back(bp.segment);
        }
        const bool automatic = !x.provider.uses_breakpoints(x.r.model);
        // A Gemini request that names an explicit cache (cachedContent) reads
        // its prefix from it: the body holds only what follows, which the
        // implicit cache's minimum does not weigh.
        if (automatic && x.r.cached_content.empty() && !x.r.segments.empty() &&
            x.minimum.tokens > 1) {
            ends.push_back(x.r.segments.size() - 1);
        }
        for (const auto end : ends) {
            check_minimum_at(x, end, automatic, out);
        }
    }

    void check_minimum_at(const Subject& x, std::size_t end, bool automatic,
                          std::vector<Finding>& out)
    {
        const Request& r = x.r;
        const auto& minimum = x.minimum;
        const std::string doubt =
            ruleset::minimum_doubt(minimum.certain(), minimum.known_model, r.provider);
        const double band = x.band;
        const Segment& s = r.segments[end];
        const auto tokens = static_cast<double>(s.cumulative_tokens);
        if (tokens * (1 - band) >= static_cast<double>(minimum.tokens)) {
            return;
        }
        const std::string what = automatic ? "the prompt" : "the prefix up to " + s.path.str();
        // An automatic cache was not asked to cache anything: a short prompt
        // is a fact to know (severity info), not a mistake to fix.
        const auto emit_below = [&](Finding f) {
            if (automatic) {
                f.severity = analysis::Severity::info;
            }
            emit(out, std::move(f));
        };
        const std::string consequence =
            !automatic          ? ""
            : minimum.certain() ? " for automatic caching: nothing of it is cached"
                                : " for automatic caching: probably nothing of it is cached";
        if (x.exact) {
            Finding f = make(analysis::rule::k_below_minimum, r, &s, std::nullopt);
            f.kind = "exact";
            f.message = fmt::format("{} is {} tokens (counted with the model's tokenizer), below "
                                    "the {} minimum of {}{}{}",
                                    what, group_digits(s.cumulative_tokens), r.model,
                                    group_digits(minimum.tokens), doubt, consequence);
            emit_below(std::move(f));
            return;
        }
        if (m_options.counter != nullptr && m_text != nullptr) {
            if (const auto exact = m_options.counter->count_prefix(*m_text, r, end)) {
                if (*exact < minimum.tokens) {
                    Finding f = make(analysis::rule::k_below_minimum, r, &s, std::nullopt);
                    f.kind = "exact";
                    f.message =
                        fmt::format("{} is {} tokens (counted by the provider; estimated "
                                    "{}), below the {} minimum of {}{}{}",
                                    what, group_digits(*exact), group_digits(s.cumulative_tokens),
                                    r.model, group_digits(minimum.tokens), doubt, consequence);
                    emit_below(std::move(f));
                }
                return;
            }
        }
        const bool borderline = tokens * (1 + band) >= static_cast<double>(minimum.tokens);
        Finding f = make(analysis::rule::k_below_minimum, r, &s, std::nullopt);
        f.kind = borderline ? "borderline" : "";
        f.message =
            fmt::format("{} is about {} tokens (±{:.0f}%: {}–{}), {} the {} minimum of {}{}{}",
                        what, group_digits(s.cumulative_tokens), band * 100,
                        group_digits(std::llround(tokens * (1 - band))),
                        group_digits(std::llround(tokens * (1 + band))),
                        borderline ? "borderline against" : "below", r.model,
                        group_digits(minimum.tokens), doubt, consequence);
        emit_below(std::move(f));
    }

    // CW015: a breakpoint whose window (rule "The lookback window is 20
    // blocks", the breakpoint itself first) misses the previous write or the
    // breakpoint before it. In a conversation the previous request wrote at
    // its last block (its moving breakpoint), the block before the latest
    // reply: what matters is how far this turn grew past it ("a turn
    // appends 25 blocks"), not how far the system's breakpoint lies, which
    // reads its own entry.
    void check_lookback(const Subject& x, std::vector<Finding>& out)
    {
        const Request& r = x.r;
        const auto window = static_cast<std::uint32_t>(
            x.provider.has("lookback_positions") ? x.provider.integer("lookback_positions") : 0);
        for (std::size_t i = 0; window > 0 && i < x.bps.size(); ++i) {
            const auto from = i > 0 ? std::optional(x.bps[i - 1].segment) : std::nullopt;
            const auto& to = x.bps[i];
            // Where the previous request wrote, between the two: read by the
            // earlier breakpoint when it lies there, by this one when within
            // its window; below the minimum (or borderline) nothing may have
            // been written to miss (suggest marks it under the same rule).
            if (const auto previous = previous_write_end(r, from, to.segment)) {
                if (*previous != from && reaches(r, *previous, x.minimum.tokens, x.band) &&
                    lookback_span(r, *previous, to.segment) > window) {
                    emit(out, turn_past_window(r, *previous, to, window));
                }
            } else if (from && lookback_span(r, *from, to.segment) > window) {
                Finding f = make(analysis::rule::k_lookback_exceeded, r, &r.segments[to.segment],
                                 std::nullopt);
                f.message = fmt::format(
                    "{} lookback positions from the breakpoint at {} to the one at {}, both "
                    "counted; a breakpoint looks back only {}, itself included",
                    lookback_span(r, *from, to.segment), r.segments[*from].path.str(),
                    r.segments[to.segment].path.str(), window);
                emit(out, std::move(f));
            }
        }
    }

    // A breakpoint past the window from where the previous request wrote,
    // the block before the latest reply: that entry is not found and the
    // prompt is written again (rules §1.3, §1.4).
    Finding turn_past_window(const Request& r, std::size_t previous, const model::Breakpoint& bp,
                             std::uint32_t window)
    {
        Finding f =
            make(analysis::rule::k_lookback_exceeded, r, &r.segments[bp.segment], std::nullopt);
        f.message = fmt::format(
            "{} lookback positions from {} (the block before the latest reply, where the previous "
            "request wrote) to the {}breakpoint at {}, both counted; a breakpoint looks back only "
            "{}, itself included, so that entry is not found and the prompt is written again: add "
            "a breakpoint within {} positions of it, both counted",
            lookback_span(r, previous, bp.segment), r.segments[previous].path.str(),
            bp.automatic ? "automatic " : "", r.segments[bp.segment].path.str(), window, window);
        return f;
    }

    // How often a value rewrites the cache: a template alone shows that a
    // placeholder or a timestamp differs with every request, not that a date
    // or a hash ever changes.
    static std::string rewritten_when(std::string_view kind)
    {
        // A placeholder is filled per request; a literal value the template
        // shows once is only likely to change (a log shows whether it does).
        if (kind == "placeholder") {
            return "every request writes";
        }
        if (analysis::changes_every_request(kind)) {
            return fmt::format("if it changes with each request, as {} in a prompt usually "
                               "does, every request writes",
                               with_article(kind));
        }
        if (kind == "date" || kind == "today") {
            return "when it changes (daily, at midnight) the next request writes";
        }
        return "if it differs between requests (a template cannot tell how often), each writes";
    }

    // Where a template's stable prefix ends, for CW011: surely at its first
    // placeholder (filled per request), and, if the value changes with each
    // request as one of its kind usually does, at the first such literal (a
    // time, a timestamp, an id, a counter), which a template alone cannot
    // show to change.
    struct StableEnds {
        std::optional<std::size_t> certain;
        std::optional<std::size_t> literal;
        std::string literal_kind;
        std::string literal_path;
        void see(std::size_t k, const std::string& kind, std::string path)
        {
            if (!analysis::changes_every_request(kind)) {
                return;
            }
            if (kind == "placeholder") {
                certain = certain.value_or(k);
            } else if (!literal) {
                literal = k;
                literal_kind = kind;
                literal_path = std::move(path);
            }
        }
    };

    // CW010 and CW017: dynamic values (and placeholders) in the cached part.
    // Returns where the stable prefix ends for CW011 (a date changes daily,
    // and what surrounds it is read within the day: it ends nothing).
    StableEnds check_dynamic(const Subject& x, std::vector<Finding>& out)
    {
        const Request& r = x.r;
        const auto& minimum = x.minimum;
        const auto& last = x.last;
        const analysis::DivergenceContext context{m_rules, *m_texts, m_matcher, m_estimator,
                                                  &m_options.count_exact};
        const auto dynamic = analysis::scan_dynamic_fields(r, context, true);
        std::optional<std::size_t> first_dynamic;
        std::int64_t first_token = 0; // where its first value sits
        StableEnds ends;
        std::unordered_map<std::string, std::size_t> index_of; // path -> segment
        for (std::size_t i = 0; i < r.segments.size(); ++i) {
            index_of.try_emplace(r.segments[i].path.str(), i);
        }
        for (const auto& d : dynamic) {
            const auto found = index_of.find(d.location.path);
            const auto k = found == index_of.end() ? std::optional<std::size_t>()
                                                   : std::optional<std::size_t>(found->second);
            if (!k) {
                continue;
            }
            const Segment& s = r.segments[*k];
            ends.see(*k, d.kind, s.path.str());
            // Tokens after the value itself (it may open a long block).
            const std::int64_t stable_after =
                (last ? r.segments[*last].cumulative_tokens : r.prompt_tokens()) -
                d.location.token.value_or(s.cumulative_tokens);
            // Without a breakpoint a value matters only before a long stable tail.
            if (!last && stable_after < minimum.tokens) {
                continue;
            }
            Finding f = make(analysis::rule::k_dynamic_field, r, &s, d.location.offset);
            f.location.token = d.location.token;
            f.kind = d.kind;
            f.excerpt = d.excerpt;
            f.tokens_lost = d.tokens_lost;
            f.message =
                last ? fmt::format("{} value sits before the last breakpoint ({}): {} {} cached "
                                   "tokens again",
                                   with_article(d.kind), r.segments[*last].path.str(),
                                   rewritten_when(d.kind), group_digits(d.tokens_lost))
                     : fmt::format("{} value sits before {} stable tokens that could be cached",
                                   with_article(d.kind), group_digits(stable_after));
            // CW017 weighs values known to change: every request, or the
            // current date a "Today is" announces; a literal date, id or
            // hash may well be static (CW010 hedges them).
            const bool changes = analysis::changes_every_request(d.kind) || d.kind == "today";
            const std::int64_t at = d.location.token.value_or(s.cumulative_tokens);
            if (changes && (!first_dynamic || at < first_token)) {
                first_dynamic = *k;
                first_token = at;
            }
            emit(out, std::move(f));
        }
        if (first_dynamic) {
            // The stable tokens after the value, its own segment's rest
            // included, as CW010 counts them.
            const Segment& s = r.segments[*first_dynamic];
            const std::int64_t after = r.prompt_tokens() - first_token;
            if (after >= minimum.tokens) {
                Finding f = make(analysis::rule::k_dynamic_before_stable, r, &s, std::nullopt);
                f.tokens_lost = after;
                f.message = fmt::format(
                    "dynamic content at {} comes ahead of {} tokens of stable content: move it "
                    "after them (e.g. into the last user turn) and they can be cached",
                    s.path.str(), group_digits(after));
                emit(out, std::move(f));
            }
        }

        return ends;
    }

    // CW040: a credential in the template is sent with every request.
    void check_secrets(const Subject& x, std::vector<Finding>& out)
    {
        const Request& r = x.r;
        for (std::size_t k = 0; k < r.segments.size(); ++k) {
            const Segment& s = r.segments[k];
            const auto raw = m_texts->get(s.content);
            const std::string text = raw ? model::display_text(*raw, s.kind) : std::string();
            const auto matches = find_secrets(text);
            const auto chars = analysis::char_offsets(text, matches);
            for (std::size_t i = 0; i < matches.size(); ++i) {
                Finding f = make(analysis::rule::k_secret_in_prompt, r, &s, chars[i]);
                analysis::place_secret(f, r, k, text, matches[i], m_rules, m_estimator,
                                       &m_options.count_exact);
                emit(out, std::move(f));
            }
        }
    }

    // CW011: a cacheable stable prefix and no breakpoint at all (OpenAI:
    // explicit mode without one; implicit mode marks the end itself). Where
    // only a literal that may be static stands between a short prefix and a
    // long one, the finding says both and what each asks for.
    void check_no_breakpoint(const Subject& x, const StableEnds& ends, std::vector<Finding>& out)
    {
        const Request& r = x.r;
        if (!x.bps.empty() || !(x.anthropic || (x.openai_breakpoints && r.explicit_mode))) {
            return;
        }
        const auto before = [&](std::optional<std::size_t> k) {
            return k ? r.segments[*k].cumulative_tokens - r.segments[*k].tokens : r.prompt_tokens();
        };
        const auto reaches = [&](std::int64_t tokens) {
            return static_cast<double>(tokens) * (1 - x.band) >=
                   static_cast<double>(x.minimum.tokens);
        };
        const std::int64_t surely = before(ends.certain);
        const bool literal_first = ends.literal && (!ends.certain || *ends.literal < *ends.certain);
        const std::int64_t stable = literal_first ? before(ends.literal) : surely;
        const bool hedged = !reaches(stable) && literal_first && reaches(surely);
        if (!reaches(stable) && !hedged) {
            return;
        }
        Finding f = make(analysis::rule::k_no_breakpoint, r, nullptr, std::nullopt);
        f.location.path = x.anthropic ? "cache_control" : "prompt_cache_options";
        f.tokens_lost = hedged ? surely : stable;
        const std::string size =
            fmt::format("{}{} tokens", x.exact ? "" : "about ", group_digits(f.tokens_lost));
        const std::string above =
            fmt::format("above the {} minimum of {}", r.model, group_digits(x.minimum.tokens));
        // The marker's name in this request's API.
        const std::string_view marker = !x.anthropic ? "prompt_cache_breakpoint"
                                        : r.format == model::ApiFormat::bedrock_converse
                                            ? "cachePoint block"
                                            : "cache_control";
        if (hedged) {
            f.message = fmt::format(
                "no {}, and the prompt is stable for {}, {}, if {} value in {} is a literal (a "
                "template cannot show whether it changes): then mark the end of those tokens; if "
                "it changes with each request, move it after them first (CW010)",
                marker, size, above, with_article(ends.literal_kind), ends.literal_path);
        } else if (x.anthropic) {
            f.message = fmt::format("no {}, but the stable prefix is {}, {}: add a "
                                    "breakpoint at its end",
                                    marker, size, above);
        } else {
            f.message = fmt::format("explicit cache mode without a prompt_cache_breakpoint caches "
                                    "nothing, but the stable prefix is {}, {}: mark its end, or "
                                    "use implicit mode",
                                    size, above);
        }
        emit(out, std::move(f));
    }

    const ruleset::Rules& m_rules;
    LintOptions m_options;
    std::unique_ptr<analysis::DynamicFieldMatcher> m_matcher_owned;
    const analysis::DynamicFieldMatcher& m_matcher;
    model::TokenEstimator m_estimator;
    std::optional<SourceMap> m_map;
    const std::string* m_text = nullptr; // the body, for exact counts
    std::string m_path;
    const model::TextStore* m_texts = nullptr;
};

std::unique_ptr<analysis::DynamicFieldMatcher>
template_matcher(const ruleset::Rules& rules, const std::vector<std::string>& placeholders)
{
    // Placeholders are dynamic fields of their own kind.
    ruleset::DynamicFieldRules fields = rules.dynamic_fields;
    for (std::size_t i = 0; i < placeholders.size(); ++i) {
        const re2::RE2 check(placeholders[i], re2::RE2::Quiet);
        if (!check.ok()) {
            throw Error(
                fmt::format("placeholder pattern \"{}\": {}", placeholders[i], check.error()));
        }
        ruleset::DynamicFieldPattern p;
        p.name = fmt::format("placeholder-{}", i + 1);
        p.kind = "placeholder";
        p.pattern = placeholders[i];
        p.file = "(placeholders)";
        fields.patterns.push_back(std::move(p));
    }
    return std::make_unique<analysis::DynamicFieldMatcher>(fields);
}

Linter::Linter(const ruleset::Rules& rules, const LintOptions& options)
    : m_impl(std::make_unique<Impl>(rules, options))
{}

Linter::~Linter() = default;

void
Linter::lint(const LintInput& input, std::vector<analysis::Finding>& out)
{
    m_impl->file(input, out);
}

} // namespace cachewise::advise
