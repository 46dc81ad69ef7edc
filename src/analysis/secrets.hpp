#pragma once

#include "analysis/finding.hpp"
#include "model/request.hpp"
#include "model/text_store.hpp"
#include "util/hash.hpp"
#include "util/redact.hpp"

#include <string_view>
#include <unordered_map>
#include <vector>

namespace cachewise::analysis {

// Fills a CW040 finding's kind, message and (masked) excerpt for a secret
// found at `match` in a segment's text.
void describe_secret(Finding& f, std::string_view text, const SecretMatch& match);

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

// CW040 over a log: every segment's text is scanned once per distinct
// content; a segment seen again adds an occurrence to its findings.
class SecretScanner {
public:
    explicit SecretScanner(const model::TextStore& texts) : m_texts(texts) {}

    void add(const model::Request& request);

    [[nodiscard]] const std::vector<Finding>&
    findings() const
    {
        return m_findings;
    }

private:
    const model::TextStore& m_texts;
    std::vector<Finding> m_findings;
    // Segment content -> the findings it produced (indices in m_findings).
    std::unordered_map<Hash128, std::vector<std::size_t>, Hash128Hasher> m_seen;
};

} // namespace cachewise::analysis
