#include "analysis/secrets.hpp"

#include "analysis/rule_catalogue.hpp"
#include "analysis/segment_text.hpp"
#include "model/display_text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstring>

#if defined(__SSE2__)
#include <immintrin.h>
#endif

namespace cachewise::analysis {

namespace {

constexpr std::size_t k_context = 24; // bytes of text shown on each side

// Moves a cut back to the start of a UTF-8 character.
std::size_t
char_start(std::string_view text, std::size_t at)
{
    while (at > 0 && at < text.size() && (static_cast<unsigned char>(text[at]) & 0xc0) == 0x80) {
        --at;
    }
    return at;
}

char
lower(char c)
{
    return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

bool
is_word(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-';
}

// The first byte first: anchor_at tries some thirty needles at each
// candidate, and almost all differ there (a library call each, otherwise).
bool
has_at(std::string_view text, std::size_t at, std::string_view needle)
{
    return at < text.size() && !needle.empty() && text[at] == needle[0] &&
           text.substr(at, needle.size()) == needle;
}

bool
has_at_nocase(std::string_view text, std::size_t at, std::string_view needle)
{
    if (text.size() - at < needle.size()) {
        return false;
    }
    for (std::size_t i = 0; i < needle.size(); ++i) {
        if (lower(text[at + i]) != needle[i]) {
            return false;
        }
    }
    return true;
}

bool
is_value(char c)
{
    return is_word(c) || c == '.' || c == '/' || c == '+' || c == '=' || c == '~';
}

// find_secrets' skip_quotes (at most six quotes, apostrophes, backslashes,
// spaces or tabs) read in the rendering: as it is when the display text is
// the rendering, or through its JSON escapes when the display text is a
// string inside it, which then ends at a bare quote.
std::size_t
skip_quotes(std::string_view text, std::size_t p, bool escaped)
{
    for (int n = 0; n < 6 && p < text.size(); ++n) {
        const char c = text[p];
        if (c == '\'' || c == ' ' || c == '\t' || (!escaped && (c == '"' || c == '\\'))) {
            ++p;
        } else if (escaped && c == '\\' && p + 1 < text.size() &&
                   (text[p + 1] == '"' || text[p + 1] == '\\' || text[p + 1] == 't')) {
            p += 2;
        } else {
            break;
        }
    }
    return p;
}

// find_secrets' named_at: after a secret's name, ':' or '=' and a value of
// at least 12 characters (a password's of any printable one but quotes and
// backslashes, which end it). Value characters are never escaped.
bool
value_follows(std::string_view text, std::size_t end, bool escaped, bool password)
{
    std::size_t p = skip_quotes(text, end, escaped);
    const std::size_t assignment = assignment_at(text, p);
    if (assignment == 0) {
        return false;
    }
    p = skip_quotes(text, p + assignment, escaped);
    std::size_t n = 0;
    const auto value_char = [password](char c) {
        return password ? is_password_char(c) : is_value(c);
    };
    while (p + n < text.size() && n < 12 && value_char(text[p + n])) {
        ++n;
    }
    return n == 12;
}

// A secret's name (find_secrets: names_secret) ends a word and is followed
// by a value (named_at).
bool
name_then_assignment(std::string_view text, std::size_t end, bool password)
{
    if (end < text.size() && is_word(text[end])) {
        return false;
    }
    return value_follows(text, end, false, password) || value_follows(text, end, true, password);
}

// Does something find_secrets reacts to start at `at` of a rendering?
// `joins` is true where display_text concatenates text blocks (a
// tool_result): two blocks meet at "},{", and a key could span them.
bool
anchor_at(std::string_view text, std::size_t at, bool joins)
{
    static constexpr std::array<std::string_view, 14> k_prefixes = {
        "AKIA",     "ASIA",     "AGPA",     "AIDA", "AROA",   "AIza", "sk_live_",
        "sk_test_", "rk_live_", "rk_test_", "hf_",  "glpat-", "npm_", "xai-"};
    static constexpr std::array<std::string_view, 7> k_names = {
        "key", "token", "secret", "password", "passwd", "pwd", "credential"};
    const char c = text[at];
    if (c == '\\') {
        // The renderer escapes only control characters as \u00XX; any other
        // \u escape could hide a key's letters.
        return has_at(text, at + 1, "u") &&
               !(text.substr(at + 2, 2) == "00" && text.size() > at + 4 &&
                 (text[at + 4] == '0' || text[at + 4] == '1'));
    }
    if (c == '}') {
        return joins && has_at(text, at, "},{");
    }
    if (c == ':') {
        return url_password_at(text, at);
    }
    // Most candidates are ordinary words ("kept", "start"): a needle is
    // compared only where its first byte is.
    static constexpr std::array<std::string_view, 5> k_literals = {"sk-", "xox", "eyJ",
                                                                   "-----BEGIN", "github_pat_"};
    const auto literal = [&](std::string_view needle) { return has_at(text, at, needle); };
    if (std::ranges::any_of(k_literals, literal) ||
        (c == 'g' && has_at(text, at, "gh") && text.size() > at + 3 && text[at + 3] == '_') ||
        (lower(c) == 'b' && has_at_nocase(text, at, "bearer")) ||
        std::ranges::any_of(k_prefixes, literal)) {
        return true;
    }
    return std::ranges::any_of(k_names, [&](std::string_view name) {
        const bool password = name[0] == 'p';
        return lower(c) == name[0] && has_at_nocase(text, at, name) &&
               name_then_assignment(text, at + name.size(), password);
    });
}

#if defined(__SSE2__)
// 32 bytes a step where AVX2 is compiled in, else 16.
struct Lanes {
#if defined(__AVX2__)
    using V = __m256i;
    static constexpr std::size_t k_width = 32;
#else
    using V = __m128i;
    static constexpr std::size_t k_width = 16;
#endif
    static V load(const char* p)
    {
#if defined(__AVX2__)
        return _mm256_loadu_si256(reinterpret_cast<const V*>(p));
#else
        return _mm_loadu_si128(reinterpret_cast<const V*>(p));
#endif
    }
    static V splat(char c)
    {
#if defined(__AVX2__)
        return _mm256_set1_epi8(c);
#else
        return _mm_set1_epi8(c);
#endif
    }
    static V is(V v, char c)
    {
#if defined(__AVX2__)
        return _mm256_cmpeq_epi8(v, splat(c));
#else
        return _mm_cmpeq_epi8(v, splat(c));
#endif
    }
    static V both(V a, V b)
    {
#if defined(__AVX2__)
        return _mm256_and_si256(a, b);
#else
        return _mm_and_si128(a, b);
#endif
    }
    static V either(V a, V b)
    {
#if defined(__AVX2__)
        return _mm256_or_si256(a, b);
#else
        return _mm_or_si128(a, b);
#endif
    }
    // ASCII letters lower-cased (other bytes changed too: only compared).
    static V low(V v)
    {
        return either(v, splat(0x20));
    }
    static unsigned mask(V v)
    {
#if defined(__AVX2__)
        return static_cast<unsigned>(_mm256_movemask_epi8(v));
#else
        return static_cast<unsigned>(_mm_movemask_epi8(v));
#endif
    }
};
#endif

#if defined(__SSE2__)
// Bit i: text[i] is the first byte of a possible anchor (anchor_at checks it).
// Each anchor is told by its first byte and one byte 1 to 9 further on.
unsigned
candidates(const char* p)
{
    using L = Lanes;
    const auto at = [p](int d) { return L::load(p + d); };
    const auto v0 = at(0);
    const auto v2 = at(2);
    const auto v3 = at(3);
    const auto v5 = at(5);
    const auto l0 = L::low(v0);
    const auto l2 = L::low(v2);
    const auto l4 = L::low(at(4));
    const auto l5 = L::low(v5);
    auto m = L::both(L::is(v0, 's'), L::is(v2, '-'));                  // sk-
    m = L::either(m, L::both(L::is(v0, 'A'), L::is(L::low(v3), 'a'))); // AKIA, AIza
    m = L::either(m, L::both(L::is(v0, 'g'), L::either(L::is(v3, '_'), L::is(at(6), '_')))); // gh?_
    m = L::either(m, L::both(L::is(v0, 'x'), L::is(v2, 'x')));                               // xox
    m = L::either(m, L::both(L::is(v0, 'e'), L::is(v2, 'J')));                               // eyJ
    m = L::either(m, L::both(L::is(v0, '-'), L::is(v5, 'B'))); // -----BEGIN
    m = L::either(m, L::both(L::is(l0, 'b'), L::is(l5, 'r'))); // bearer
    m = L::either(m, L::both(L::is(l0, 'k'), L::is(l2, 'y'))); // key
    m = L::either(m, L::both(L::is(l0, 't'), L::is(l4, 'n'))); // token
    m = L::either(m, L::both(L::is(l0, 's'), L::is(l5, 't'))); // secret
    m = L::either(m,
                  L::both(L::is(l0, 'p'), L::either(L::is(l4, 'w'), L::is(l2, 'd')))); // passw, pwd
    m = L::either(m, L::both(L::is(l0, 'c'), L::is(L::low(at(9)), 'l')));              // credential
    m = L::either(m, L::both(L::is(v0, '\\'), L::is(at(1), 'u')));                     // \u
    m = L::either(m, L::both(L::is(v0, '}'), L::is(v2, '{')));                         // },{
    // sk_live_, rk_test_, hf_, glpat-, npm_, xai-
    m = L::either(m, L::both(L::either(L::is(v0, 's'), L::either(L::is(v0, 'r'), L::is(v0, 'h'))),
                             L::is(v2, '_')));
    m = L::either(m, L::both(L::is(v0, 'g'), L::is(v5, '-')));
    m = L::either(m, L::both(L::is(v0, 'n'), L::is(v3, '_')));
    m = L::either(m, L::both(L::is(v0, 'x'), L::is(v3, '-')));
    m = L::either(m, L::both(L::is(v0, ':'), L::is(v2, '/'))); // ://
    return L::mask(m);
}
#endif

} // namespace

bool
may_hold_secret(std::string_view rendered, model::SegmentKind kind)
{
    const bool joins = kind == model::SegmentKind::tool_result;
    const std::size_t n = rendered.size();
#if defined(__SSE2__)
    constexpr std::size_t k_block = Lanes::k_width;
    constexpr std::size_t k_reach = 10; // candidates() reads bytes up to p + 9 + k_block
    const auto check = [&](std::size_t base, unsigned bits) {
        for (; bits != 0; bits &= bits - 1) {
            const std::size_t at = base + static_cast<std::size_t>(__builtin_ctz(bits));
            if (at < n && anchor_at(rendered, at, joins)) {
                return true;
            }
        }
        return false;
    };
    std::size_t i = 0;
    for (; i + k_block + k_reach <= n; i += k_block) {
        if (const unsigned bits = candidates(rendered.data() + i); bits != 0 && check(i, bits)) {
            return true;
        }
    }
    // The tail, zero-padded: zero bytes start no anchor.
    std::array<char, k_block * 2 + k_reach> pad{};
    if (i < n) {
        std::memcpy(pad.data(), rendered.data() + i, n - i);
    }
    for (std::size_t b = 0; i + b < n; b += k_block) {
        if (const unsigned bits = candidates(pad.data() + b); bits != 0 && check(i + b, bits)) {
            return true;
        }
    }
    return false;
#else
    for (std::size_t i = 0; i < n; ++i) {
        if (anchor_at(rendered, i, joins)) {
            return true;
        }
    }
    return false;
#endif
}

namespace {
// secret_tags' bits: may_hold_secret for a tool result (whose rendering a
// secret's name and value may straddle) and for every other kind.
constexpr std::uint8_t k_tag_plain = 1;
constexpr std::uint8_t k_tag_tool_result = 2;
} // namespace

std::uint8_t
secret_tags(std::string_view rendered)
{
    // A tool result's anchors are the others and "},{" (anchor_at), so a
    // rendering with none for a tool result has none for any kind: one scan
    // for the many texts that hold nothing.
    if (!may_hold_secret(rendered, model::SegmentKind::tool_result)) {
        return 0;
    }
    return may_hold_secret(rendered, model::SegmentKind::text) ? k_tag_plain | k_tag_tool_result
                                                               : k_tag_tool_result;
}

bool
may_hold_secret(std::uint8_t tags, model::SegmentKind kind)
{
    return (tags & (kind == model::SegmentKind::tool_result ? k_tag_tool_result : k_tag_plain)) !=
           0;
}

namespace {

// A CW040 finding's kind, message and (masked) excerpt.
void
describe_secret(Finding& f, std::string_view text, const SecretMatch& match)
{
    f.kind = std::string(match.kind);
    const std::size_t from =
        char_start(text, match.offset > k_context ? match.offset - k_context : 0);
    const std::size_t end = match.offset + match.length;
    const std::size_t to = char_start(text, std::min(text.size(), end + k_context));
    const std::string masked = mask(text, match);
    WindowRedactor redact(text, from, std::max(to, end));
    f.excerpt =
        Excerpt{"", fmt::format("{}{}{}{}{}", from > 0 ? "…" : "", redact.piece(from, match.offset),
                                redact.piece(match.offset, end),
                                redact.piece(end, std::max(to, end)), to < text.size() ? "…" : "")};
    const bool vowel = !match.kind.empty() &&
                       std::string_view("aeiou").find(match.kind.front()) != std::string_view::npos;
    f.message = fmt::format("{} {} ({}) is part of the prompt: it goes to the provider with every "
                            "request, and rotating it busts the cache from here on",
                            vowel ? "an" : "a", match.kind, masked);
}

} // namespace

void
place_secret(Finding& f, const model::Request& request, std::size_t k, std::string_view text,
             const SecretMatch& match, const ruleset::Rules& rules,
             const model::TokenEstimator& estimator, const ExactTextCounter* count_exact)
{
    const std::int64_t token =
        position_in_segment(request, k, text, match.offset, estimator, count_exact).second;
    f.location.token = token;
    f.tokens_lost = tokens_lost(request, k, token, rules);
    describe_secret(f, text, match);
}

std::vector<std::size_t>
char_offsets(std::string_view text, const std::vector<SecretMatch>& matches)
{
    std::vector<std::size_t> out;
    std::size_t at = 0;
    std::size_t chars = 0;
    for (const auto& m : matches) {
        for (; at < m.offset && at < text.size(); ++at) {
            chars += (static_cast<unsigned char>(text[at]) & 0xc0) != 0x80 ? 1 : 0;
        }
        out.push_back(chars);
    }
    return out;
}

std::pair<SecretScanner::Seen*, bool>
SecretScanner::seen(const Hash128& content)
{
    if (4 * (m_seen_used + 1) > 3 * m_seen.size()) {
        std::vector<Seen> old(std::max<std::size_t>(1024, 2 * m_seen.size()));
        old.swap(m_seen);
        m_seen_used = 0;
        for (const auto& slot : old) {
            if (slot.used) {
                *seen(slot.content).first = slot;
            }
        }
    }
    const std::size_t mask = m_seen.size() - 1;
    for (std::size_t i = content.low & mask;; i = (i + 1) & mask) {
        Seen& slot = m_seen[i];
        if (!slot.used) {
            slot.used = true;
            slot.content = content;
            ++m_seen_used;
            return {&slot, true};
        }
        if (slot.content == content) {
            return {&slot, false};
        }
    }
}

std::uint32_t
SecretScanner::new_list()
{
    m_lists.emplace_back();
    return static_cast<std::uint32_t>(m_lists.size());
}

void
SecretScanner::add_occurrence(std::uint32_t list)
{
    if (list != 0) {
        for (const std::size_t i : m_lists[list - 1]) {
            ++m_findings[i].occurrences;
        }
    }
}

void
SecretScanner::finish()
{
    m_seen = {};
    m_seen_used = 0;
    m_lists = {};
    m_previous = {};
}

void
SecretScanner::add(const model::Request& request)
{
    // Consecutive requests of a conversation share a prefix (equal chains,
    // so equal contents): its segments were looked up with the request
    // before, and only their findings gain an occurrence.
    const auto& segments = request.segments;
    std::size_t shared = 0;
    while (shared < m_previous.size() && shared < segments.size() &&
           m_previous[shared].chain == segments[shared].chain) {
        add_occurrence(m_previous[shared].list);
        ++shared;
    }
    m_previous.resize(shared);
    for (std::size_t k = shared; k < segments.size(); ++k) {
        const auto& s = segments[k];
        const auto [slot, added] = seen(s.content);
        if (!added) {
            add_occurrence(slot->list);
            m_previous.push_back(Previous{s.chain, slot->list});
            continue;
        }
        m_previous.push_back(Previous{s.chain, 0});
        if (const auto tags = m_texts.tags(s.content); tags && !may_hold_secret(*tags, s.kind)) {
            continue;
        }
        const auto raw = m_texts.get(s.content);
        if (!raw || !may_hold_secret(*raw, s.kind)) {
            continue;
        }
        const std::string shown = model::display_text(*raw, s.kind); // what offsets count in
        const std::string_view text = shown;
        const auto matches = find_secrets(text);
        if (matches.empty()) {
            continue;
        }
        const std::uint32_t list = new_list();
        slot->list = list;
        m_previous.back().list = list;
        const auto chars = char_offsets(text, matches);
        for (std::size_t i = 0; i < matches.size(); ++i) {
            const auto& match = matches[i];
            Finding f = make_finding(rule::k_secret_in_prompt, request);
            f.location.path = s.path.str();
            f.location.offset = chars[i];
            place_secret(f, request, k, text, match, m_rules, m_estimator, m_count_exact);
            m_lists[list - 1].push_back(m_findings.size());
            m_findings.push_back(std::move(f));
        }
    }
}

} // namespace cachewise::analysis
