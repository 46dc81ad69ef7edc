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
