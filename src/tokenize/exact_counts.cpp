#include "tokenize/exact_counts.hpp"

#include "model/display_text.hpp"
#include "model/tokens.hpp"
#include "util/error.hpp"
#include "util/format.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <simdjson.h>

namespace cachewise::tokenize {

namespace {

int
message_overhead(const ChatTemplate* chat, model::Role role)
{
    if (chat == nullptr) {
        return 0;
    }
    switch (role) {
    case model::Role::system:
        return chat->system;
    case model::Role::assistant:
        return chat->assistant;
    default:
        return chat->user;
    }
}

// Why a vocabulary is not at hand, in a few words: the note that says so
// is printed beside a report, not instead of it.
std::string
missing_reason(const TokenizerEntry& entry, const std::optional<std::string>& user_dir)
{
    if (user_dir) {
        return fmt::format("no {} in --tokenizer-dir {}", entry.file, *user_dir);
    }
    if (entry.shipped) {
        return fmt::format("{} is missing from the installed rules", entry.file);
    }
    return fmt::format("{} is not shipped (licence or size); give --tokenizer-dir DIR", entry.file);
}

} // namespace

bool
tokenizer_is_public(std::string_view provider)
{
    return provider != "anthropic" && provider != "gemini" && provider != "bedrock";
}

const Tokenizer*
ExactCounts::tokenizer_for(const TokenizerEntry& entry)
{
    if (m_catalogue_mutex == nullptr) {
        return value_or_throw(m_catalogue->tokenizer(entry), "");
    }
    auto& clone = m_clones[entry.name]; // one per vocabulary, whatever the models
    if (!clone) {
        const std::lock_guard lock(*m_catalogue_mutex);
        clone = value_or_throw(m_catalogue->tokenizer(entry), "")->clone();
    }
    return clone.get();
}

const ExactCounts::Resolved&
ExactCounts::resolve(const std::string& model)
{
    if (const auto it = m_models.find(model); it != m_models.end()) {
        return it->second;
    }
    Resolved r;
    if (const auto* entry = m_catalogue->for_model(model)) {
        if (!m_catalogue->locate(*entry)) {
            r.missing_entry = entry->name;
            m_missing[entry->name].reason = missing_reason(*entry, m_catalogue->user_dir());
        } else {
            r.tokenizer = tokenizer_for(*entry);
            r.chat = m_catalogue->chat_template(entry->name);
            r.salt = hash_bytes(r.tokenizer->traits().name);
        }
    }
    return m_models.emplace(model, std::move(r)).first->second;
}

bool
ExactCounts::apply(model::Request& request, const model::TextStore& store)
{
    if (!tokenizer_is_public(request.provider) || request.segments.empty()) {
        return false;
    }
    const Resolved& resolved = resolve(request.model);
    if (resolved.tokenizer == nullptr) {
        if (!resolved.missing_entry.empty()) {
            auto& missing = m_missing[resolved.missing_entry];
            ++missing.requests;
            missing.models.insert(request.model);
        }
        return false;
    }
    const Tokenizer& tokenizer = *resolved.tokenizer;
    m_counts.clear();
    for (const auto& s : request.segments) {
        if (s.kind == model::SegmentKind::unlogged) {
            m_counts.push_back(0);
            continue;
        }
        const Hash128 key{s.content.low ^ resolved.salt.low, s.content.high ^ resolved.salt.high};
        if (const auto hit = memoised(key)) {
            ++m_memo_hits;
            m_counts.push_back(*hit);
            continue;
        }
        const auto rendered = store.get(s.content);
        if (!rendered) {
            return false; // no text to count: keep the estimates
        }
        const std::string text = model::display_text(*rendered, s.kind);
        const auto n = static_cast<std::int64_t>(tokenizer.count(text));
        m_bytes += text.size();
        ++m_counted;
        memoise(key, n);
        m_counts.push_back(n);
    }
    std::optional<std::size_t> first;
    std::size_t last = 0;
    for (std::size_t i = 0; i < request.segments.size(); ++i) {
        auto& s = request.segments[i];
        if (s.kind == model::SegmentKind::unlogged) {
            continue;
        }
        std::int64_t n = m_counts[i];
        if (s.message_start) {
            n += message_overhead(resolved.chat, s.role);
        }
        s.estimate = static_cast<float>(n);
        s.token_source = model::TokenSource::exact;
        first = first.value_or(i);
        last = i;
    }
    if (first && resolved.chat != nullptr) {
        request.segments[*first].estimate += static_cast<float>(resolved.chat->start);
        request.segments[last].estimate += static_cast<float>(resolved.chat->end);
    }
    model::assign_tokens(request);
    ++m_requests;
    m_used.insert(tokenizer.traits().name);
    m_last = tokenizer.traits().name;
    return true;
}

std::optional<std::int64_t>
ExactCounts::count_text(const std::string& model, std::string_view text)
{
    const Resolved& resolved = resolve(model);
    if (resolved.tokenizer == nullptr) {
        return std::nullopt;
    }
    return static_cast<std::int64_t>(resolved.tokenizer->count(text));
}

void
ExactCounts::absorb(const ExactCounts& other)
{
    for (const auto& [name, missing] : other.m_missing) {
        auto& mine = m_missing[name];
        mine.reason = missing.reason;
        mine.requests += missing.requests;
        mine.models.insert(missing.models.begin(), missing.models.end());
    }
    m_used.insert(other.m_used.begin(), other.m_used.end());
    if (m_last.empty()) {
        m_last = other.m_last;
    }
    m_counted += other.m_counted;
    m_memo_hits += other.m_memo_hits;
    m_requests += other.m_requests;
    m_bytes += other.m_bytes;
}

std::vector<std::string>
ExactCounts::missing_notes() const
{
    std::vector<std::string> out;
    for (const auto& [name, missing] : m_missing) {
        if (missing.requests == 0) {
            continue;
        }
        out.push_back(fmt::format("no {} tokenizer ({}): {} of {} keep{} estimated token counts",
                                  name, missing.reason, count_noun(missing.requests, "request"),
                                  fmt::join(missing.models, ", "),
                                  missing.requests == 1 ? "s" : ""));
    }
    return out;
}

} // namespace cachewise::tokenize
