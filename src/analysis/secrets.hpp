#pragma once

#include "analysis/divergence.hpp"
#include "analysis/finding.hpp"
#include "model/request.hpp"
#include "model/text_store.hpp"
#include "model/tokens.hpp"
#include "ruleset/rules.hpp"
#include "util/hash.hpp"
#include "util/redact.hpp"

#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

namespace cachewise::analysis {

// Fills a CW040 finding for a secret found at `match` in the text of
// segment k of `request`: its kind, message and masked excerpt, its token, placed as a change there
// is (position_in_segment), and what rotating it spoils, what a dynamic value there would
// (tokens_lost).
void place_secret(Finding& f, const model::Request& request, std::size_t k, std::string_view text,
                  const SecretMatch& match, const ruleset::Rules& rules,
                  const model::TokenEstimator& estimator, const ExactTextCounter* count_exact);

// The character offsets (a finding's location.offset) of the matches,
// which come in text order: one walk over the text.
std::vector<std::size_t> char_offsets(std::string_view text,
                                      const std::vector<SecretMatch>& matches);

// False when find_secrets cannot find anything in the display text of a
// segment rendered as `rendered` (display_text(rendered, kind)), without
// computing that text: every key shape, "Bearer" and every secret's name
// followed by ':' or '=' is looked for in the rendering, where the bytes of
// a name or a key appear as they are (JSON escapes only change quotes,
// backslashes and control characters). The JSON parse of display_text and
// the scan then run only for the few segments that may hold a secret.
// True is only a "maybe".
bool may_hold_secret(std::string_view rendered, model::SegmentKind kind);

// may_hold_secret of a rendering for every kind at once, as the bits a
// TextStore keeps with the text (its tagger): the scan then runs on the
// loader's workers, as each text is first put.
std::uint8_t secret_tags(std::string_view rendered);
bool may_hold_secret(std::uint8_t tags, model::SegmentKind kind);

// CW040 over a log: every segment's text is scanned once per distinct
// content; a segment seen again adds an occurrence to its findings. It tags
// the texts put into `texts` from now on (secret_tags), so that only a text
// that may hold a secret is read back.
class SecretScanner {
public:
    // Token positions are placed as find_divergence places a change: with
    // `count_exact` where a segment was counted exactly, else estimated.
    SecretScanner(model::TextStore& texts, const ruleset::Rules& rules,
                  const ExactTextCounter* count_exact = nullptr)
        : m_texts(texts), m_rules(rules), m_estimator(rules.tokens), m_count_exact(count_exact)
    {
        texts.set_tagger(&secret_tags);
    }

    void add(const model::Request& request);
    // After the last add(): frees what only add() reads (a slot per
    // distinct content of the log: 12 MB on a 1 GB Claude Code folder).
    void finish();

    [[nodiscard]] const std::vector<Finding>& findings() const { return m_findings; }

private:
    const model::TextStore& m_texts;
    const ruleset::Rules& m_rules;
    model::TokenEstimator m_estimator;
    const ExactTextCounter* m_count_exact;
    std::vector<Finding> m_findings;
    // The findings of a content, as indices into m_findings; 0: none.
    std::uint32_t new_list();
    void add_occurrence(std::uint32_t list);

    // Segment content -> its findings (an index into m_lists, 0: none), by
    // open addressing on the content hash, which is uniform already: a
    // lookup is a masked index and a short probe.
    struct Seen {
        Hash128 content;
        std::uint32_t list = 0;
        bool used = false;
    };
    // The slot of `content` and whether it was just added; valid until the
    // next call.
    std::pair<Seen*, bool> seen(const Hash128& content);
    std::vector<Seen> m_seen;
    std::size_t m_seen_used = 0;
    std::vector<std::vector<std::size_t>> m_lists;
    // The last request's segments: chain and findings list.
    struct Previous {
        Hash128 chain;
        std::uint32_t list;
    };
    std::vector<Previous> m_previous;
};

} // namespace cachewise::analysis
