#include "analysis/secrets.hpp"

#include "analysis/rule_catalogue.hpp"
#include "analysis/segment_text.hpp"

#include <fmt/format.h>

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

} // namespace

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
    f.message = fmt::format("a {} ({}) is part of the prompt: it goes to the provider with every "
                            "request, and rotating it busts the cache from here on",
                            match.kind, masked);
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

void
SecretScanner::add(const model::Request& request)
{
    for (const auto& s : request.segments) {
        if (const auto it = m_seen.find(s.content); it != m_seen.end()) {
            for (const std::size_t i : it->second) {
                ++m_findings[i].occurrences;
            }
            continue;
        }
        auto& produced = m_seen[s.content];
        const auto raw = m_texts.get(s.content);
        if (!raw) {
            continue;
        }
        const std::string shown = display_text(*raw, s.kind); // what offsets count in
        const std::string_view text = shown;
        const auto matches = find_secrets(text);
        const auto chars = char_offsets(text, matches);
        for (std::size_t i = 0; i < matches.size(); ++i) {
            const auto& match = matches[i];
            Finding f = make_finding(rule::k_secret_in_prompt);
            f.request = request.id;
            f.stream = request.stream;
            f.file = request.file;
            f.line = request.line;
            f.location.path = s.path.str();
            f.location.offset = chars[i];
            f.location.token = s.cumulative_tokens - s.tokens;
            // What a rotation of the key spoils: the prompt from its segment on.
            f.tokens_lost = request.prompt_tokens() - *f.location.token;
            describe_secret(f, text, match);
            produced.push_back(m_findings.size());
            m_findings.push_back(std::move(f));
        }
    }
}

} // namespace cachewise::analysis
