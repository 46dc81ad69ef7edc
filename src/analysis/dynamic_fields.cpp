#include "analysis/dynamic_fields.hpp"

#include "analysis/code_regions.hpp"
#include "util/error.hpp"

#include <fmt/format.h>
#include <re2/re2.h>
#include <re2/set.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>

namespace cachewise::analysis {

DynamicFieldMatcher::DynamicFieldMatcher(const ruleset::DynamicFieldRules& rules)
    : m_set(std::make_unique<re2::RE2::Set>(re2::RE2::Options(), re2::RE2::UNANCHORED)),
      m_entropy_min_length(rules.entropy_min_length),
      m_entropy_min_digits(rules.entropy_min_digits),
      m_entropy_min_bits(rules.entropy_min_bits_per_char), m_entropy_kind(rules.entropy_kind),
      m_entropy_ignore_prefixes(rules.entropy_ignore_prefixes)
{
    re2::RE2::Options options;
    options.set_log_errors(false);
    for (const auto& p : rules.patterns) {
        std::string error;
        if (m_set->Add(p.pattern, &error) < 0) {
            throw Error(fmt::format("{}: pattern {}: {}", p.file, p.name, error));
        }
        Pattern pattern{
            p.name, p.kind, p.announces, p.fallback, std::make_unique<re2::RE2>(p.pattern, options),
            {}};
        for (const auto& [name, index] : pattern.re->NamedCapturingGroups()) {
            if (name.rfind("value", 0) == 0) {
                pattern.value_groups.push_back(index);
            }
        }
        if (!p.not_preceded_by.empty()) {
            pattern.not_before =
                std::make_unique<re2::RE2>("(?:" + p.not_preceded_by + ")$", options);
        }
        if (!p.not_followed_by.empty()) {
            pattern.not_after = std::make_unique<re2::RE2>(p.not_followed_by, options);
        }
        check_context_examples(p, pattern);
        m_patterns.push_back(std::move(pattern));
    }
    if (!m_set->Compile()) {
        throw Error("the dynamic-field patterns are too large to compile together");
    }
    check_entropy_examples(rules);
}

// The entropy test is code, its thresholds data: the examples in the rules
// prove the thresholds still separate keys from paths and ids.
void
DynamicFieldMatcher::check_entropy_examples(const ruleset::DynamicFieldRules& rules) const
{
    const auto random = [&](const std::string& text) {
        std::vector<DynamicMatch> found;
        find_random_tokens(text, found);
        return !found.empty();
    };
    for (std::size_t k = 0; k < rules.entropy_examples.size(); ++k) {
        if (!random(rules.entropy_examples[k])) {
            throw Error(fmt::format("rules file {}: entropy.examples[{}]: not found by the "
                                    "entropy test",
                                    rules.entropy_file, k));
        }
    }
    for (std::size_t k = 0; k < rules.entropy_counter_examples.size(); ++k) {
        if (random(rules.entropy_counter_examples[k])) {
            throw Error(fmt::format("rules file {}: entropy.counter_examples[{}]: found by the "
                                    "entropy test, but a counter-example must not be",
                                    rules.entropy_file, k));
        }
    }
}

// A pattern with a context is proved here, through the context, as the
// rules prove the others: every example found, no counter-example.
void
DynamicFieldMatcher::check_context_examples(const ruleset::DynamicFieldPattern& rule,
                                            const Pattern& p) const
{
    if (!p.not_before && !p.not_after) {
        return;
    }
    const auto found = [&](const std::string& text) {
        std::vector<DynamicMatch> out;
        find_pattern(p, text, out);
        return !out.empty();
    };
    for (std::size_t k = 0; k < rule.examples.size(); ++k) {
        if (!found(rule.examples[k])) {
            throw Error(fmt::format("{}: pattern {}: examples[{}]: excluded by its context",
                                    rule.file, rule.name, k));
        }
    }
    for (std::size_t k = 0; k < rule.counter_examples.size(); ++k) {
        if (found(rule.counter_examples[k])) {
            throw Error(fmt::format("{}: pattern {}: counter_examples[{}]: found in its context, "
                                    "but a counter-example must not be",
                                    rule.file, rule.name, k));
        }
    }
}

bool
DynamicFieldMatcher::in_context(const Pattern& p, std::string_view text, std::size_t begin,
                                std::size_t end)
{
    // The words next to a value decide; a short window keeps this linear.
    constexpr std::size_t k_reach = 48;
    if (p.not_before) {
        const std::size_t from = begin > k_reach ? begin - k_reach : 0;
        if (re2::RE2::PartialMatch(re2::StringPiece(text.data() + from, begin - from),
                                   *p.not_before)) {
            return false;
        }
    }
    if (p.not_after) {
        const std::size_t n = std::min(k_reach, text.size() - end);
        re2::StringPiece after(text.data() + end, n);
        if (p.not_after->Match(after, 0, n, re2::RE2::ANCHOR_START, nullptr, 0)) {
            return false;
        }
    }
    return true;
}

DynamicFieldMatcher::~DynamicFieldMatcher() = default;

namespace {

// "/v2/files/{file_id}/restore": a single-brace name that is a segment of a
// path is a route's parameter (OpenAPI, RFC 6570), written the same in
// every request, not a template's placeholder.
bool
path_parameter(std::string_view text, const DynamicMatch& m)
{
    // Only `{name}`: `{{name}}` and `${name}` are a template engine's.
    if (m.begin == 0 || text[m.begin - 1] != '/' || m.end - m.begin < 3 || text[m.begin] != '{' ||
        text[m.begin + 1] == '{') {
        return false;
    }
    const char after = m.end < text.size() ? text[m.end] : ' ';
    return after == '/' || after == '?' || after == ')' || after == '.' || after == ',' ||
           after == '`' || after == '"' || std::isspace(static_cast<unsigned char>(after)) != 0;
}

// A `{i}` inside code is syntax, and a route's parameter is part of its
// path: neither is a template placeholder.
void
drop_placeholders_in_code(std::string_view text, std::vector<DynamicMatch>& matches)
{
    const bool any = std::any_of(matches.begin(), matches.end(),
                                 [](const DynamicMatch& m) { return m.kind == "placeholder"; });
    if (!any) {
        return;
    }
    const auto code = code_regions(text);
    std::erase_if(matches, [&](const DynamicMatch& m) {
        return m.kind == "placeholder" && (inside(code, m.begin, m.end) || path_parameter(text, m));
    });
}

// Whether the text between two values joins them into a range ("9:30 AM
// to 5:00 PM", "09:00-17:00", "from 2025-01-01 until 2025-03-31").
bool
range_joint(std::string_view between)
{
    const auto first = between.find_first_not_of(" \t");
    if (first == std::string_view::npos) {
        return false;
    }
    const auto last = between.find_last_not_of(" \t");
    const std::string_view word = between.substr(first, last - first + 1);
    return word == "-" || word == "\u2013" || word == "to" || word == "until" || word == "till" ||
           word == "through";
}

// Times and dates that bound a range are a schedule or a period (opening
// hours, a validity), written once: not a value that changes with each
// request.
void
drop_ranges(std::string_view text, std::vector<DynamicMatch>& matches)
{
    std::vector<bool> in_range(matches.size(), false);
    for (std::size_t i = 0; i + 1 < matches.size(); ++i) {
        const auto& a = matches[i];
        const auto& b = matches[i + 1];
        if (a.kind == b.kind && (a.kind == "time" || a.kind == "date") && b.begin >= a.end &&
            b.begin - a.end <= 9 && range_joint(text.substr(a.end, b.begin - a.end))) {
            in_range[i] = in_range[i + 1] = true;
        }
    }
    std::size_t k = 0;
    std::erase_if(matches, [&](const DynamicMatch&) { return in_range[k++]; });
}

} // namespace

std::vector<DynamicMatch>
DynamicFieldMatcher::find(std::string_view text) const
{
    std::vector<DynamicMatch> out;
    const re2::StringPiece input(text.data(), text.size());
    std::vector<int> hits;
    if (!m_patterns.empty() && m_set->Match(input, &hits)) {
        std::sort(hits.begin(), hits.end()); // rules order breaks ties below
        for (const int index : hits) {
            find_pattern(m_patterns[static_cast<std::size_t>(index)], text, out);
        }
    }
    find_random_tokens(text, out);
    drop_placeholders_in_code(text, out);
    std::stable_sort(out.begin(), out.end(), [](const DynamicMatch& a, const DynamicMatch& b) {
        return a.begin != b.begin ? a.begin < b.begin : a.end > b.end;
    });
    drop_ranges(text, out);
    // "Current date and time: 2026-…": report the value, not its announcement.
    constexpr std::size_t k_announce_reach = 40;
    std::vector<DynamicMatch> kept;
    for (std::size_t i = 0; i < out.size(); ++i) {
        if (out[i].fallback) {
            const bool specific = std::any_of(out.begin(), out.end(), [&](const DynamicMatch& v) {
                return !v.announces && !v.fallback && v.begin < out[i].end && out[i].begin < v.end;
            });
            if (specific) {
                continue;
            }
        }
        if (out[i].announces) {
            // Sorted by start: only the matches starting in the reach are
            // looked at, so many announcements stay linear.
            const auto from = std::lower_bound(
                out.begin(), out.end(), out[i].begin,
                [](const DynamicMatch& m, std::size_t at) { return m.begin < at; });
            bool value_follows = false;
            for (auto it = from; it != out.end() && it->begin <= out[i].end + k_announce_reach;
                 ++it) {
                value_follows = value_follows || !it->announces;
            }
            if (value_follows) {
                continue;
            }
        }
        kept.push_back(std::move(out[i]));
    }
    return kept;
}

void
DynamicFieldMatcher::find_pattern(const Pattern& p, std::string_view text,
                                  std::vector<DynamicMatch>& out) const
{
    const re2::StringPiece input(text.data(), text.size());
    std::vector<re2::StringPiece> groups(static_cast<std::size_t>(p.re->NumberOfCapturingGroups()) +
                                         1);
    std::size_t pos = 0;
    while (pos <= text.size() && p.re->Match(input, pos, text.size(), re2::RE2::UNANCHORED,
                                             groups.data(), static_cast<int>(groups.size()))) {
        const re2::StringPiece whole = groups[0];
        re2::StringPiece value = whole;
        for (const int g : p.value_groups) {
            if (groups[static_cast<std::size_t>(g)].data() != nullptr) {
                value = groups[static_cast<std::size_t>(g)];
                break;
            }
        }
        const auto begin = static_cast<std::size_t>(value.data() - text.data());
        if (in_context(p, text, begin, begin + value.size())) {
            out.push_back(
                DynamicMatch{p.name, p.kind, p.announces, p.fallback, begin, begin + value.size()});
        }
        const auto end = static_cast<std::size_t>(whole.data() - text.data()) + whole.size();
        pos = end > begin ? end : begin + 1; // never loop on an empty match
    }
}

bool
DynamicFieldMatcher::is_history_id(std::string_view token) const
{
    return std::any_of(m_entropy_ignore_prefixes.begin(), m_entropy_ignore_prefixes.end(),
                       [&](const std::string& prefix) { return token.rfind(prefix, 0) == 0; });
}

void
DynamicFieldMatcher::find_random_tokens(std::string_view text, std::vector<DynamicMatch>& out) const
{
    const auto is_token_char = [](unsigned char c) {
        // '/' separates: a path is a run of pieces, each judged alone.
        return std::isalnum(c) != 0 || c == '_' || c == '-' || c == '+' || c == '=';
    };
    std::size_t i = 0;
    while (i < text.size()) {
        if (!is_token_char(static_cast<unsigned char>(text[i]))) {
            ++i;
            continue;
        }
        const std::size_t begin = i;
        bool letter = false;
        std::size_t digits = 0;
        std::array<int, 256> counts{};
        while (i < text.size() && is_token_char(static_cast<unsigned char>(text[i]))) {
            const auto c = static_cast<unsigned char>(text[i]);
            letter = letter || std::isalpha(c) != 0;
            digits += std::isdigit(c) != 0 ? 1 : 0;
            ++counts[c];
            ++i;
        }
        const std::size_t length = i - begin;
        if (length < m_entropy_min_length || !letter ||
            digits < std::max<std::size_t>(1, m_entropy_min_digits) ||
            is_history_id(text.substr(begin, length))) {
            continue;
        }
        double bits = 0;
        for (const int n : counts) {
            if (n > 0) {
                const double p = static_cast<double>(n) / static_cast<double>(length);
                bits -= p * std::log2(p);
            }
        }
        if (bits >= m_entropy_min_bits) {
            out.push_back(DynamicMatch{"high-entropy", m_entropy_kind, false, false, begin, i});
        }
    }
}

std::optional<DynamicMatch>
DynamicFieldMatcher::find_covering(std::string_view text, std::size_t begin, std::size_t end) const
{
    // A change of "14:03:12Z" to "14:04:43Z" lies inside the timestamp; a
    // whole paragraph replaced is not explained by a date inside it.
    constexpr std::size_t k_edge = 3;
    std::optional<DynamicMatch> best;
    for (auto& m : find(text)) {
        if (m.begin > begin + k_edge || m.end + k_edge < end || m.end < begin) {
            continue;
        }
        if (!best || m.end - m.begin < best->end - best->begin) {
            best = m;
        }
    }
    return best;
}

bool
changes_every_request(std::string_view kind)
{
    return kind == "placeholder" || kind == "timestamp" || kind == "time" || kind == "epoch" ||
           kind == "request-id" || kind == "counter";
}

} // namespace cachewise::analysis
