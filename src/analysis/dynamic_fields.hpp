#pragma once

#include "ruleset/rules.hpp"

#include <re2/re2.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cachewise::analysis {

struct DynamicMatch {
    std::string name; // pattern name, or "high-entropy"
    std::string kind; // "date", "uuid", ...
    bool announces = false;
    bool fallback = false; // yields to any other value match it overlaps
    std::size_t begin = 0; // byte offsets in the scanned text
    std::size_t end = 0;
};

// Finds dynamic values in text. All patterns are compiled once and run
// together as one RE2::Set (linear time in the text, whatever users add);
// only the patterns the set reports are run again to locate their matches.
class DynamicFieldMatcher {
public:
    explicit DynamicFieldMatcher(const ruleset::DynamicFieldRules& rules);
    ~DynamicFieldMatcher();
    DynamicFieldMatcher(const DynamicFieldMatcher&) = delete;
    DynamicFieldMatcher& operator=(const DynamicFieldMatcher&) = delete;

    // Every match, ordered by position (widest first at one position);
    // overlapping matches are kept, except that a phrase announcing a value is
    // dropped when a value match starts within it or just after it.
    [[nodiscard]] std::vector<DynamicMatch> find(std::string_view text) const;

    // The match that explains a change of [begin, end): the change lies inside
    // it (give or take a few characters at its edges). Of several, the shortest.
    [[nodiscard]] std::optional<DynamicMatch>
    find_covering(std::string_view text, std::size_t begin, std::size_t end) const;

private:
    struct Pattern {
        std::string name;
        std::string kind;
        bool announces = false;
        bool fallback = false;
        std::unique_ptr<re2::RE2> re;
        std::vector<int> value_groups;        // (?P<value…>) groups: the part reported
        std::unique_ptr<re2::RE2> not_before; // ruleset::DynamicFieldPattern; null: none
        std::unique_ptr<re2::RE2> not_after;
    };
    void find_pattern(const Pattern& p, std::string_view text,
                      std::vector<DynamicMatch>& out) const;
    // False when the text around [begin, end) makes the value something else.
    [[nodiscard]] static bool in_context(const Pattern& p, std::string_view text, std::size_t begin,
                                         std::size_t end);
    void check_context_examples(const ruleset::DynamicFieldPattern& rule, const Pattern& p) const;
    void find_random_tokens(std::string_view text, std::vector<DynamicMatch>& out) const;
    [[nodiscard]] bool is_history_id(std::string_view token) const;
    void check_entropy_examples(const ruleset::DynamicFieldRules& rules) const;

    std::vector<Pattern> m_patterns;
    std::unique_ptr<re2::RE2::Set> m_set;
    std::size_t m_entropy_min_length;
    std::size_t m_entropy_min_digits;
    double m_entropy_min_bits;
    std::string m_entropy_kind;
    std::vector<std::string> m_entropy_ignore_prefixes;
};

// Values a template's requests differ in every time (a placeholder, a
// timestamp, a request id, a counter). The others (a date, the id of a
// session or a deployment, a hash) stay a while, and a breakpoint after them
// pays until they change: a template alone cannot say how often.
bool changes_every_request(std::string_view kind);

} // namespace cachewise::analysis
