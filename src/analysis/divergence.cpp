#include "analysis/divergence.hpp"

#include "analysis/rule_catalogue.hpp"
#include "analysis/segment_text.hpp"
#include "model/breakpoints.hpp"
#include "model/chain.hpp"
#include "model/display_text.hpp"
#include "util/format.hpp"
#include "util/redact.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

namespace cachewise::analysis {

using model::Level;
using model::Request;
using model::Segment;

namespace {

constexpr std::size_t k_context_chars = 40; // excerpt context on each side of a change
constexpr std::size_t k_block_mark = 40;    // bytes of a replaced block marked (mark_blocks)

std::int64_t
tokens_before(const Request& r, std::size_t k)
{
    return k == 0 ? 0 : r.segments[k - 1].cumulative_tokens;
}

std::optional<std::size_t>
last_breakpoint(const Request& r)
{
    std::optional<std::size_t> last;
    for (const auto& bp : model::breakpoints(r)) {
        last = std::max(last.value_or(0), bp.segment);
    }
    return last;
}

int
message_count(const Request& r)
{
    int n = 0;
    for (const auto& s : r.segments) {
        if (s.path.level == Level::messages) {
            n = std::max(n, s.path.message + 1);
        }
    }
    return n;
}

// What a rewritten history costs, and what it would cost where nothing was
// cached (find_latent).
constexpr std::string_view k_history_lost = "the cache of everything after it is lost";
constexpr std::string_view k_history_would_be_lost = "a cache of everything after it would be lost";

// The changed range of two texts: common head and tail peeled off.
struct Change {
    std::size_t head = 0;    // bytes shared at the start
    std::size_t was_end = 0; // end of the changed part in `was`
    std::size_t now_end = 0; // end of the changed part in `now`
};

Change
diff(std::string_view was, std::string_view now)
{
    Change c;
    const std::size_t n = std::min(was.size(), now.size());
    while (c.head < n && was[c.head] == now[c.head]) {
        ++c.head;
    }
    c.head = std::min(utf8_floor(was, c.head), utf8_floor(now, c.head));
    std::size_t tail = 0;
    while (tail < n - c.head && was[was.size() - 1 - tail] == now[now.size() - 1 - tail]) {
        ++tail;
    }
    // Keep the tail on a character boundary.
    while (tail > 0 && (static_cast<unsigned char>(now[now.size() - tail]) & 0xC0) == 0x80) {
        --tail;
    }
    c.was_end = was.size() - tail;
    c.now_end = now.size() - tail;
    return c;
}

// How far from a change a credential that holds it may start or end (a PEM
// key's length).
constexpr std::size_t k_secret_reach = 2048;
// The credentials that may hold [begin, end) of text: found within
// k_secret_reach of it, their offsets in the whole text.
std::vector<SecretMatch>
secrets_near(std::string_view text, std::size_t begin, std::size_t end)
{
    const std::size_t lo = begin > k_secret_reach ? begin - k_secret_reach : 0;
    auto found = find_secrets(text.substr(lo, std::min(text.size(), end + k_secret_reach) - lo));
    for (auto& m : found) {
        m.offset += lo;
    }
    return found;
}

// Does credential m hold part of [begin, end) (an empty change: the byte at begin)?
bool
holds(const SecretMatch& m, std::size_t begin, std::size_t end)
{
    return m.offset < std::max(end, begin + 1) && m.offset + m.length > begin;
}

// "…context«changed»context…" around [begin, end) of text, with the text's
// secrets when they are known already: all of them (many excerpts of one
// text) or at least those within k_secret_reach of the change (secrets_near).
std::string
excerpt(std::string_view text, std::size_t begin, std::size_t end,
        const std::vector<SecretMatch>* secrets = nullptr)
{
    // A change inside a credential (a rotated key) marks the whole masked
    // credential: its changed characters are never shown, and «» would
    // mark nothing.
    const auto widen = [&](const std::vector<SecretMatch>& list) {
        for (const auto& m : list) {
            if (holds(m, begin, end)) {
                begin = std::min(begin, m.offset);
                end = std::max(end, m.offset + m.length);
            }
        }
    };
    widen(secrets != nullptr ? *secrets : secrets_near(text, begin, end));
    std::size_t from = begin > k_context_chars ? utf8_floor(text, begin - k_context_chars) : 0;
    std::size_t to = std::min(text.size(), end + k_context_chars);
    to = to < text.size() ? utf8_floor(text, to) : to;
    // A credential the window cuts is masked whole, not shown in part.
    WindowRedactor redact = secrets != nullptr ? WindowRedactor(text, from, to, *secrets)
                                               : WindowRedactor(text, from, to);
    std::string out;
    if (from > 0) {
        out += "…";
    }
    out += printable(redact.piece(from, begin));
    out += "«";
    out += printable(redact.piece(begin, end));
    out += "»";
    out += printable(redact.piece(end, to));
    if (to < text.size()) {
        out += "…";
    }
    return out;
}

// A change inside a credential (a rotated key), as the value that changed
// (its kind "credential", its name the key's kind): told before any dynamic
// pattern (a key also looks random), because its fix is CW040's.
std::optional<DynamicMatch>
rotated_credential(const std::vector<SecretMatch>& near, std::size_t begin, std::size_t end)
{
    for (const auto& m : near) {
        if (holds(m, begin, end)) {
            return DynamicMatch{
                std::string(m.kind), std::string(rule::k_credential_kind), false, false, m.offset,
                m.offset + m.length};
        }
    }
    return std::nullopt;
}

std::optional<double>
cost_of(const Request& request, const Request& partner, std::int64_t tokens,
        const ruleset::Rules& rules)
{
    if (tokens <= 0) {
        return std::nullopt;
    }
    const std::string date =
        request.started_at ? format_rfc3339(*request.started_at).substr(0, 10) : "";
    const auto* period = rules.pricing.find(request.model, date);
    if (period == nullptr) {
        return std::nullopt;
    }
    // The lost tokens are paid again at the rate of the partner's cache write
    // instead of the read rate; without breakpoints, at the base input rate.
    double paid = period->prices.input;
    const auto bps = model::breakpoints(partner);
    if (!bps.empty()) {
        paid = bps.back().cache_control.ttl == model::Ttl::one_hour ? period->prices.write_1h
                                                                    : period->prices.write_5m;
    }
    return static_cast<double>(tokens) * (paid - period->prices.read) / 1e6;
}

// Ids that a provider or an agent gave to a past turn (tool calls, messages,
// files): in the messages they are history, so a changed one means the
// history was rewritten, not that a dynamic value sits in the prompt.
bool
is_history_id_kind(std::string_view kind)
{
    return kind == "uuid" || kind == "hex-id" || kind == "request-id" || kind == "random-token";
}

// Character and token positions of increasing byte offsets in one segment's
// text. The first k_exact are measured from the segment's start; later ones
// continue from the previous offset, so that a text holding thousands of
// values costs time linear in its size (a continued count may differ from a
// fresh one by a token at each cut). A segment counted with its model's
// tokenizer is counted again with it (the message's template tokens, what
// its count holds beyond the text, come first); others are estimated and
// scaled to the segment's tokens.
class PositionCursor {
public:
    PositionCursor(const Request& r, std::size_t k, std::string_view text,
                   const model::TokenEstimator& estimator, const ExactTextCounter* count_exact)
        : m_r(r), m_k(k), m_text(text), m_estimator(estimator)
    {
        const Segment& s = r.segments[k];
        if (count_exact != nullptr && *count_exact && s.token_source == model::TokenSource::exact) {
            const auto whole = (*count_exact)(r.model, text);
            // Only when the text is what was counted: its count and the
            // template's few tokens make the segment's.
            if (whole && *whole <= s.tokens && s.tokens - *whole <= k_template_tokens) {
                m_count = count_exact;
                m_overhead = s.tokens - *whole;
            }
        }
    }
    PositionCursor(const Request& r, std::size_t k, std::string_view text,
                   const DivergenceContext& context)
        : PositionCursor(r, k, text, context.estimator, context.count_exact)
    {}

    std::pair<std::size_t, std::int64_t> at(std::size_t offset)
    {
        static constexpr std::size_t k_exact = 64;
        const bool fresh = m_calls++ < k_exact || offset < m_offset;
        const std::string_view piece =
            fresh ? m_text.substr(0, offset) : m_text.substr(m_offset, offset - m_offset);
        m_chars = (fresh ? 0 : m_chars) + utf8_length(piece, piece.size());
        m_inside = (fresh ? 0 : m_inside) + measure(piece);
        m_offset = offset;
        const Segment& s = m_r.segments[m_k];
        const double inside = m_count != nullptr ? static_cast<double>(m_overhead) + m_inside
                              : s.estimate > 0   ? m_inside * static_cast<double>(s.tokens) /
                                                     static_cast<double>(s.estimate)
                                               : m_inside;
        return {m_chars,
                tokens_before(m_r, m_k) + std::min<std::int64_t>(s.tokens, std::llround(inside))};
    }

private:
    static constexpr std::int64_t k_template_tokens = 16;

    double measure(std::string_view piece) const
    {
        if (m_count != nullptr) {
            if (const auto n = (*m_count)(m_r.model, piece)) {
                return static_cast<double>(*n);
            }
        }
        return m_estimator.text(piece);
    }

    const Request& m_r;
    std::size_t m_k;
    std::string_view m_text;
    const model::TokenEstimator& m_estimator;
    const ExactTextCounter* m_count = nullptr;
    std::int64_t m_overhead = 0;
    std::size_t m_calls = 0;
    std::size_t m_offset = 0;
    std::size_t m_chars = 0;
    double m_inside = 0; // tokens (counted) or the estimate (estimated) before m_offset
};

std::string
describe_param(const model::Param& p)
{
    return p.present ? p.value : std::string("(unset)");
}

class Classifier {
public:
    Classifier(const Request& now, const Request& was, std::size_t k, const DivergenceContext& c)
        : m_now(now), m_was(was), m_k(k), m_c(c)
    {}

    Finding run()
    {
        const Segment& a = m_was.segments[m_k];
        const Segment& b = m_now.segments[m_k];
        if (m_now.model != m_was.model) {
            return scope({"model"}, Level::tools);
        }
        const Level level = std::min(a.path.level, b.path.level);
        if (a.content == b.content && a.role == b.role && a.message_start == b.message_start &&
            a.path.level == b.path.level) {
            // Same block, different chain: a parameter mixed in where this level begins.
            std::vector<std::string> changed;
            for (const auto& p : m_now.params) {
                const auto* q = m_was.param(p.name);
                if (p.level <= level &&
                    (q == nullptr || q->present != p.present || q->value != p.value)) {
                    changed.push_back(p.name);
                }
            }
            if (!changed.empty()) {
                return scope(changed, level);
            }
        }
        if (level == Level::tools) {
            return tools();
        }
        return content(level);
    }

private:
    Finding base(std::string_view rule) const
    {
        Finding f = make_finding(rule, m_now);
        f.partner = m_was.id;
        f.location.path = m_now.segments[m_k].path.str();
        f.location.offset = 0;
        f.location.token = tokens_before(m_now, m_k);
        return f; // the loss follows where the change is: find_divergence
    }

    Finding scope(const std::vector<std::string>& names, Level level) const
    {
        Finding f = base(rule::k_scope_changed);
        std::string what;
        for (const auto& name : names) {
            const auto* p = m_now.param(name);
            const auto* q = m_was.param(name);
            const std::string before =
                name == "model" ? m_was.model : (q ? describe_param(*q) : "(unset)");
            const std::string after =
                name == "model" ? m_now.model : (p ? describe_param(*p) : "(unset)");
            what += fmt::format("{}{} {} → {}", what.empty() ? "" : "; ", name, before, after);
            if (p != nullptr) {
                level = std::min(level, p->level);
            }
        }
        f.kind = names.front();
        f.excerpt = Excerpt{};
        f.message = fmt::format("{}: invalidates the {} level and everything after it", what,
                                ruleset::to_string(level));
        return f;
    }

    std::optional<std::string> text_of(const Request& r, std::size_t k) const
    {
        const auto t = m_c.texts.get(r.segments[k].content);
        return t ? std::optional<std::string>(std::string(*t)) : std::nullopt;
    }

    // Fills offset, token and excerpt from the two segments' texts; returns the
    // dynamic value at the change, if any.
    std::optional<DynamicMatch> locate(Finding& f, bool display) const
    {
        const auto was_raw = text_of(m_was, m_k);
        const auto now_raw = text_of(m_now, m_k);
        if (!was_raw || !now_raw) {
            return std::nullopt;
        }
        const std::string was =
            display ? model::display_text(*was_raw, m_was.segments[m_k].kind) : *was_raw;
        const std::string now =
            display ? model::display_text(*now_raw, m_now.segments[m_k].kind) : *now_raw;
        const Change c = diff(was, now);
        f.location.offset = utf8_length(now, c.head);
        f.location.token = PositionCursor(m_now, m_k, now, m_c).at(c.head).second;
        // One scan for credentials near the change on each side, for the
        // excerpts and for telling a rotated key.
        const auto was_near = secrets_near(was, c.head, c.was_end);
        const auto now_near = secrets_near(now, c.head, c.now_end);
        f.excerpt = Excerpt{excerpt(was, c.head, c.was_end, &was_near),
                            excerpt(now, c.head, c.now_end, &now_near)};
        if (auto m = rotated_credential(now_near, c.head, c.now_end)) {
            return m;
        }
        if (auto m = rotated_credential(was_near, c.head, c.was_end)) {
            return m;
        }
        if (auto m = m_c.matcher.find_covering(now, c.head, c.now_end)) {
            return m;
        }
        return m_c.matcher.find_covering(was, c.head, c.was_end);
    }

    // Two blocks of different kinds in one place: each marked whole from its
    // start (the first k_block_mark bytes), the change at offset 0.
    void mark_blocks(Finding& f) const
    {
        const auto was_raw = text_of(m_was, m_k);
        const auto now_raw = text_of(m_now, m_k);
        if (!was_raw || !now_raw) {
            return;
        }
        // "[thinking] «…»": the kinds say a block was replaced, not edited.
        const auto start = [](std::string_view raw, model::SegmentKind kind) {
            const std::string text = model::display_text(raw, kind);
            return fmt::format(
                "[{}] {}", model::to_string(kind),
                excerpt(text, 0,
                        text.size() > k_block_mark ? utf8_floor(text, k_block_mark) : text.size()));
        };
        f.location.offset = 0;
        f.excerpt = Excerpt{start(*was_raw, m_was.segments[m_k].kind),
                            start(*now_raw, m_now.segments[m_k].kind)};
    }

    Finding dynamic(Finding f, const DynamicMatch& m) const
    {
        // The same request, place, excerpt and cost, told as a dynamic value.
        set_rule(f, rule::k_dynamic_field);
        f.kind = m.kind;
        f.message =
            m.kind == rule::k_credential_kind
                ? fmt::format("a credential ({}) changed inside the cached prefix at {}: a rotated "
                              "key spoils the cache from there on; take it out of the prompt "
                              "(CW040)",
                              m.name, f.location.path)
                : fmt::format(
                      "a dynamic value ({}, pattern {}) changed inside the cached prefix at {}",
                      m.kind, m.name, f.location.path);
        return f;
    }

    using ToolList = std::vector<std::pair<Hash128, std::size_t>>; // content, index

    // A request's tool definitions (first for Anthropic, after the
    // instructions for OpenAI) and their names.
    static ToolList tool_list(const Request& r)
    {
        ToolList out;
        for (const auto& segment : r.segments) {
            if (segment.path.level == Level::tools) {
                out.emplace_back(segment.content, out.size());
            }
        }
        return out;
    }

    std::vector<std::string> tool_names(const ToolList& list) const
    {
        std::vector<std::string> out;
        for (const auto& [hash, index] : list) {
            const auto t = m_c.texts.get(hash);
            out.push_back(t ? tool_name(*t) : fmt::format("tools[{}]", index));
        }
        return out;
    }

    static bool same_tool_set(ToolList a, ToolList b)
    {
        const auto by_hash = [](const auto& x, const auto& y) { return x.first < y.first; };
        std::sort(a.begin(), a.end(), by_hash);
        std::sort(b.begin(), b.end(), by_hash);
        return a.size() == b.size() &&
               std::equal(a.begin(), a.end(), b.begin(),
                          [](const auto& x, const auto& y) { return x.first == y.first; });
    }

    // "added X; removed Y" between two name lists, with the finding's kind.
    static std::string added_removed(const std::vector<std::string>& was,
                                     const std::vector<std::string>& now, std::string& kind)
    {
        const auto missing_from = [](const auto& from, const auto& in) {
            std::vector<std::string> out;
            for (const auto& n : from) {
                if (std::find(in.begin(), in.end(), n) == in.end()) {
                    out.push_back(n);
                }
            }
            return out;
        };
        const auto added = missing_from(now, was);
        const auto removed = missing_from(was, now);
        std::string what;
        if (!added.empty()) {
            what += fmt::format("added {}", fmt::join(added, ", "));
            kind = "added";
        }
        if (!removed.empty()) {
            what += fmt::format("{}removed {}", what.empty() ? "" : "; ", fmt::join(removed, ", "));
            kind = kind.empty() ? "removed" : "added-removed";
        }
        return what;
    }

    Finding tools() const
    {
        const ToolList was_tools = tool_list(m_was);
        const ToolList now_tools = tool_list(m_now);
        const auto was_names = tool_names(was_tools);
        const auto now_names = tool_names(now_tools);
        if (same_tool_set(was_tools, now_tools)) {
            Finding f = base(rule::k_tools_reordered);
            f.kind = "reordered";
            f.excerpt = Excerpt{fmt::format("{}", fmt::join(was_names, ", ")),
                                fmt::format("{}", fmt::join(now_names, ", "))};
            f.message = fmt::format("the same {} tools in another order: {} → {}", now_tools.size(),
                                    fmt::join(was_names, ", "), fmt::join(now_names, ", "));
            return f;
        }
        const bool both_tools = m_k < m_was.segments.size() && m_k < m_now.segments.size() &&
                                m_was.segments[m_k].path.level == Level::tools &&
                                m_now.segments[m_k].path.level == Level::tools;
        if (both_tools) {
            if (auto drift = serialization(); drift) {
                return *drift;
            }
        }
        Finding f = base(rule::k_tools_changed);
        std::string what = added_removed(was_names, now_names, f.kind);
        if (what.empty()) {
            std::size_t first_tool = 0;
            while (first_tool < m_now.segments.size() &&
                   m_now.segments[first_tool].path.level != Level::tools) {
                ++first_tool;
            }
            const std::size_t at = m_k - std::min(m_k, first_tool);
            const std::string name = at < now_names.size() ? now_names[at] : std::string("?");
            what = fmt::format("the definition of {} changed", name);
            f.kind = "changed";
            if (both_tools) {
                if (auto m = locate(f, false)) {
                    return dynamic(f, *m);
                }
            }
        }
        const bool tools_first =
            !m_now.segments.empty() && m_now.segments.front().path.level == Level::tools;
        f.message = fmt::format("tool definitions changed ({}): {}", what,
                                tools_first ? "every cache level is invalidated"
                                            : "the cache from the tools on is invalidated");
        return f;
    }

    std::optional<Finding> serialization() const
    {
        const auto a = text_of(m_was, m_k);
        const auto b = text_of(m_now, m_k);
        if (!a || !b || !canonical_equal(*a, *b)) {
            return std::nullopt;
        }
        Finding f = base(rule::k_serialization_drift);
        f.kind = "serialization";
        locate(f, false);
        f.message = fmt::format("{} is the same JSON with another key order or number format: the "
                                "serialiser is not stable",
                                f.location.path);
        return f;
    }

    Finding content(Level level) const
    {
        if (auto drift = serialization(); drift) {
            return *drift;
        }
        Finding f = base(rule::k_prefix_changed);
        const Segment& b = m_now.segments[m_k];
        const Segment& a = m_was.segments[m_k];
        const bool same_place = a.path == b.path;
        std::optional<DynamicMatch> match;
        // Blocks of two kinds in one place (a thinking block dropped before
        // a text block) were not edited: a character diff of their texts
        // would place the change at a meaningless offset.
        if (same_place && a.kind == b.kind) {
            match = locate(f, true);
        } else if (same_place) {
            mark_blocks(f);
        }
        if (level == Level::system) {
            f.kind = "system";
            f.message = fmt::format("the system prompt changed at {}", f.location.path);
        } else {
            const int message = std::min(a.path.message, b.path.message);
            const int was_messages = message_count(m_was);
            const int now_messages = message_count(m_now);
            if (message < was_messages - 1) {
                f.kind = "history-rewritten";
                std::string how = "edited";
                if (m_now.prompt_tokens() * 10 < m_was.prompt_tokens() * 6 &&
                    now_messages < was_messages) {
                    how = "compacted";
                } else if (now_messages < was_messages) {
                    how = "truncated";
                }
                f.message = fmt::format("message {} of {} was {} (history rewritten): {}", message,
                                        was_messages, how, k_history_lost);
            } else {
                f.kind = "message";
                f.message = fmt::format("the latest message ({}) changed", f.location.path);
            }
        }
        if (!same_place) {
            f.message += fmt::format(" ({} became {})", a.path.str(), b.path.str());
        }
        if (match && (level != Level::messages || !is_history_id_kind(match->kind))) {
            return dynamic(f, *match);
        }
        return f;
    }

    const Request& m_now;
    const Request& m_was;
    std::size_t m_k;
    const DivergenceContext& m_c;
};

} // namespace

std::int64_t
readable_tokens(const Request& partner, std::int64_t shared, const ruleset::Rules& rules)
{
    const auto it = rules.providers.find(partner.provider);
    return it == rules.providers.end() ? shared
                                       : it->second.readable_tokens(shared, partner.billed_model());
}

namespace {

// The partner's provider caches only at breakpoints (Anthropic, Bedrock:
// "Prompt caching" needs cache_control) and its logged body had none, not
// even an automatic one: nothing of it was cached, so a divergence lost
// nothing. `last` is the partner's last breakpoint.
bool
cached_nothing(const Request& partner, std::optional<std::size_t> last,
               const DivergenceContext& context)
{
    // A log that drops cache_control (Claude Code) says nothing of its marks.
    if (!partner.breakpoints_logged || last) {
        return false;
    }
    const auto it = context.rules.providers.find(partner.provider);
    return it != context.rules.providers.end() && it->second.uses_breakpoints(partner.model);
}

} // namespace

namespace {

// The shared tokens before segment `k` that a whole-unit cache can still
// read: up to the start of the message `k` lies in, where an earlier message
// of the conversation ends (each earlier turn persisted a unit at the end of
// its input and of its output); none in the system prompt, the tools or the
// first message, where no earlier request ended.
std::int64_t
unit_readable_before(const Request& partner, std::size_t k)
{
    bool first_seen = false;
    std::size_t boundary = 0;
    for (std::size_t i = 0; i <= k && i < partner.segments.size(); ++i) {
        const auto& s = partner.segments[i];
        if (s.path.level == Level::messages && s.message_start) {
            boundary = first_seen ? i : boundary;
            first_seen = true;
        }
    }
    return boundary == 0 ? 0 : tokens_before(partner, boundary);
}

bool
whole_unit_match(const Request& r, const ruleset::Rules& rules)
{
    const auto it = rules.providers.find(r.provider);
    return it != rules.providers.end() && it->second.has("whole_unit_match");
}

// What of `r`'s cache a request still reads after a change at token
// `change` of segment k, before the provider's minimum and steps: a cache that
// reads any prefix reads up to the change; a whole-unit cache (DeepSeek, rules
// fact "whole_unit_match": "A subsequent request can only hit the cache if it
// fully matches a cache prefix unit", units persisted at request boundaries)
// back to the last unit boundary; a breakpoint cache hashes blocks whole and
// reads only where a breakpoint wrote an entry, so up to its last breakpoint
// before the block ("cache prefixes are created in the order tools, system,
// messages").
std::int64_t
kept_before_change(const Request& r, std::size_t k, std::int64_t change,
                   const ruleset::Rules& rules)
{
    if (reads_any_prefix(r, rules)) {
        return change;
    }
    if (whole_unit_match(r, rules)) {
        return unit_readable_before(r, k);
    }
    std::int64_t kept = 0;
    for (const auto& bp : model::breakpoints(r)) {
        if (bp.segment < k) {
            kept = std::max(kept, r.segments[bp.segment].cumulative_tokens);
        }
    }
    return kept;
}

// A whole-unit cache loses the shared tokens between the last unit boundary
// and the change with it (a later request may read them once common-prefix
// persistence has stored them): the message names them.
void
name_whole_unit_loss(Finding& f, const Request& partner, std::size_t k,
                     const DivergenceContext& context)
{
    if (!whole_unit_match(partner, context.rules) || f.tokens_lost <= 0) {
        return;
    }
    const std::int64_t readable = unit_readable_before(partner, k);
    const std::int64_t before = tokens_before(partner, k);
    const std::int64_t unread = std::max(before, f.location.token.value_or(before)) - readable;
    if (unread > 0) {
        f.message += fmt::format(" ({} reads a cached prefix only as a whole unit: the {} shared "
                                 "tokens {} are lost with it)",
                                 partner.provider, group_digits(unread),
                                 readable == 0 ? "before the change"
                                               : "between the last turn's end and the change");
    }
}

// Rule "never contradict the evidence": a request whose own usage reports
// reading more than the change leaves readable of its partner's cache (past
// the estimator's band) was not charged for all the loss the change's place
// implies. The loss is what the usage leaves, and the message says why; a
// usage that reads less is said too.
void
reconcile_with_usage(Finding& f, const Request& request, const Request& partner, std::size_t k,
                     std::int64_t change, const DivergenceContext& context)
{
    if (!request.usage || f.tokens_lost <= 0) {
        return;
    }
    const std::int64_t read = request.usage->read_tokens();
    const std::int64_t kept = readable_tokens(
        partner, kept_before_change(partner, k, change, context.rules), context.rules);
    const bool estimated = partner.segments[k].token_source != model::TokenSource::exact;
    const auto margin = static_cast<std::int64_t>(
        estimated ? context.estimator.error_band() * static_cast<double>(kept) : 0.0);
    if (read + margin < kept) {
        // Less read than the change leaves: expiry, eviction or a render
        // order other than the rules assume; the audit tells which.
        f.message += fmt::format(" (the provider's usage reports only {} tokens read, less than "
                                 "the {} the change leaves readable: audit tells why)",
                                 group_digits(read), group_digits(kept));
        return;
    }
    if (read <= kept + margin) {
        return;
    }
    const std::int64_t lost = std::max<std::int64_t>(0, f.tokens_lost - (read - kept));
    f.message += fmt::format(" (the provider's usage reports {} tokens read, {} more than the "
                             "change leaves readable: {} of the {} its place implies were lost)",
                             group_digits(read), group_digits(read - kept), group_digits(lost),
                             group_digits(f.tokens_lost));
    f.tokens_lost = lost;
}

} // namespace

std::pair<std::size_t, std::int64_t>
position_in_segment(const Request& r, std::size_t k, std::string_view text, std::size_t offset,
                    const model::TokenEstimator& estimator, const ExactTextCounter* count_exact)
{
    return PositionCursor(r, k, text, estimator, count_exact).at(offset);
}

std::int64_t
tokens_lost(const Request& partner, std::size_t k, std::int64_t change, const ruleset::Rules& rules)
{
    const auto last = last_breakpoint(partner);
    if (last && *last < k) {
        return 0;
    }
    const std::int64_t end =
        last ? partner.segments[*last].cumulative_tokens : partner.prompt_tokens();
    // What the provider could read before less what it reads after, each as
    // it reads (ProviderRules::readable_tokens).
    return std::max<std::int64_t>(
        0, readable_tokens(partner, end, rules) -
               readable_tokens(partner, kept_before_change(partner, k, change, rules), rules));
}

bool
reads_any_prefix(const Request& partner, const ruleset::Rules& rules)
{
    const auto it = rules.providers.find(partner.provider);
    return it != rules.providers.end() && !it->second.has("whole_unit_match") &&
           !it->second.uses_breakpoints(partner.model);
}

namespace {

// OpenAI rule "prompt_cache_key joins the prefix hash in routing" (rules
// §2.2, sim/openai_cache.cpp): under another key a request reads nothing its
// partner cached, however much of the prompt they share.
std::optional<Finding>
cache_key_changed(const Request& request, const Request& partner, const DivergenceContext& context)
{
    if (request.provider != "openai" || partner.provider != "openai" ||
        request.cache_key == partner.cache_key || partner.segments.empty()) {
        return std::nullopt;
    }
    Finding f = make_finding(rule::k_scope_changed, request);
    f.partner = partner.id;
    f.kind = "prompt_cache_key";
    f.location.path = request.segments.front().path.str();
    f.location.offset = 0;
    f.location.token = 0;
    f.excerpt = Excerpt{};
    const auto key = [](const std::string& k) { return k.empty() ? std::string("(unset)") : k; };
    f.message = fmt::format("prompt_cache_key {} → {}: each key routes to a cache of its own, so "
                            "nothing the earlier request cached is read",
                            key(partner.cache_key), key(request.cache_key));
    f.tokens_lost = tokens_lost(partner, 0, 0, context.rules);
    reconcile_with_usage(f, request, partner, 0, 0, context);
    f.cost_usd = cost_of(request, partner, f.tokens_lost, context.rules);
    return f;
}

} // namespace

std::optional<Finding>
find_divergence(const Request& request, const Request& partner, const DivergenceContext& context)
{
    if (auto f = cache_key_changed(request, partner, context)) {
        return f;
    }
    const std::size_t k = model::shared_prefix(request, partner);
    if (k >= partner.segments.size() || k >= request.segments.size()) {
        return std::nullopt; // one prompt is a prefix of the other
    }
    const auto last = last_breakpoint(partner);
    if (last && *last < k && request.model == partner.model) {
        return std::nullopt; // they part after everything the partner had cached
    }
    if (cached_nothing(partner, last, context)) {
        return std::nullopt; // the partner cached nothing: find_latent says what would break
    }
    Finding f = Classifier(request, partner, k, context).run();
    const std::int64_t before = tokens_before(partner, k);
    const std::int64_t change = std::max(before, f.location.token.value_or(before));
    f.tokens_lost = tokens_lost(partner, k, change, context.rules);
    name_whole_unit_loss(f, partner, k, context);
    reconcile_with_usage(f, request, partner, k, change, context);
    f.cost_usd = cost_of(request, partner, f.tokens_lost, context.rules);
    if (f.tokens_lost == 0 && tokens_lost(partner, 0, 0, context.rules) == 0) {
        // Rule "minimum cacheable length": the partner's prompt was too short
        // to be cached, so the change invalidated nothing today.
        f.message += " (nothing of it was cached: the earlier prompt is below the model's "
                     "minimum cacheable length)";
    }
    return f;
}

std::optional<Finding>
find_latent(const Request& request, const Request& partner, const DivergenceContext& context)
{
    const std::size_t k = model::shared_prefix(request, partner);
    const auto last = last_breakpoint(partner);
    const bool uncached = cached_nothing(partner, last, context);
    if (k >= partner.segments.size() || k >= request.segments.size() ||
        (!uncached && (!last || *last >= k)) || request.model != partner.model) {
        return std::nullopt;
    }
    Finding f = Classifier(request, partner, k, context).run();
    // After the last breakpoint, edits of the history are ordinary growth;
    // without any, the whole prompt is what a breakpoint would cache.
    if (!uncached && f.rule != rule::k_tools_reordered && f.rule != rule::k_serialization_drift &&
        f.rule != rule::k_dynamic_field) {
        return std::nullopt;
    }
    f.severity = Severity::info;
    f.kind = f.kind.empty() ? "latent" : "latent-" + f.kind;
    f.tokens_lost = 0;
    f.cost_usd.reset();
    if (const auto at = f.message.find(k_history_lost); uncached && at != std::string::npos) {
        f.message.replace(at, k_history_lost.size(), k_history_would_be_lost);
    }
    f.message += uncached
                     ? fmt::format(" — latent: {} has no cache_control, so nothing was cached and "
                                   "nothing lost, but a breakpoint after it would miss every time",
                                   partner.id)
                     : fmt::format(" — latent: it lies after the last breakpoint ({}), so nothing "
                                   "cached was lost, but a breakpoint placed after it would miss "
                                   "every time",
                                   partner.segments[*last].path.str());
    return f;
}

std::vector<Finding>
scan_dynamic_fields(const Request& request, const DivergenceContext& context, bool whole_prompt,
                    std::size_t shared_head)
{
    std::vector<Finding> out;
    const auto last = last_breakpoint(request);
    const std::size_t end = last ? *last + 1 : request.segments.size();
    const std::int64_t cached_end =
        last ? request.segments[*last].cumulative_tokens : request.prompt_tokens();
    for (std::size_t k = 0; k < end; ++k) {
        const Segment& s = request.segments[k];
        if (s.path.level == Level::messages &&
            (whole_prompt ? s.role == model::Role::assistant : k >= shared_head)) {
            break;
        }
        const auto raw = context.texts.get(s.content);
        if (!raw) {
            continue;
        }
        const std::string text = model::display_text(*raw, s.kind);
        std::size_t covered = 0; // matches are sorted by start, widest first
        PositionCursor cursor(request, k, text, context);
        const auto matches = context.matcher.find(text);
        // One scan for secrets per text, not one per excerpt: a template of
        // 20,000 dates stays linear.
        const auto secrets = matches.empty() ? std::vector<SecretMatch>() : find_secrets(text);
        const auto in_secret = [&](const DynamicMatch& m) {
            return std::ranges::any_of(
                secrets, [&](const SecretMatch& x) { return holds(x, m.begin, m.end); });
        };
        for (const auto& m : matches) {
            if (m.begin < covered) {
                continue; // inside a wider match: the same value
            }
            covered = m.end;
            if (in_secret(m)) {
                continue; // a credential: CW040 tells it, with its own fix
            }
            const auto [chars, token] = cursor.at(m.begin);
            Finding f = make_finding(rule::k_dynamic_field, request);
            f.kind = m.kind;
            f.location.path = s.path.str();
            f.location.offset = chars;
            f.location.token = token;
            f.excerpt = Excerpt{"", excerpt(text, m.begin, m.end, &secrets)};
            f.tokens_lost = tokens_lost(request, k, token, context.rules);
            // A date is the same all day: it costs nothing within a log, and
            // everything after it at midnight.
            const bool daily = m.kind == "date" || m.kind == "today";
            f.message = fmt::format(
                "{} value ({}) at {} would spoil {} cached tokens{}", m.kind, m.name,
                f.location.path, group_digits(f.tokens_lost),
                f.tokens_lost == 0 && cached_end > 0
                    ? " (none are cached yet: the prompt is below the model's minimum cacheable "
                      "length)"
                : daily ? " when it changes: every day at midnight, they are written again"
                        : "");
            out.push_back(std::move(f));
        }
    }
    return out;
}

} // namespace cachewise::analysis
