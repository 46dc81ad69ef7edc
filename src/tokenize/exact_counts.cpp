#include "tokenize/exact_counts.hpp"

#include "analysis/segment_text.hpp"
#include "model/tokens.hpp"
#include "util/error.hpp"

namespace cachewise::tokenize {

namespace {

bool
tokenizer_is_public(const std::string& provider)
{
    return provider != "anthropic" && provider != "gemini" && provider != "bedrock";
}

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

} // namespace

const Tokenizer*
ExactCounts::tokenizer_for(const model::Request& request, const ChatTemplate*& chat)
{
    if (!tokenizer_is_public(request.provider)) {
        return nullptr;
    }
    const auto* entry = m_catalogue->for_model(request.model);
    if (entry == nullptr) {
        return nullptr;
    }
    auto t = m_catalogue->tokenizer(*entry);
    if (!t) {
        throw Error(t.error());
    }
    chat = m_catalogue->chat_template(entry->name);
    return *t;
}

bool
ExactCounts::apply(model::Request& request, const model::TextStore& store)
{
    const ChatTemplate* chat = nullptr;
    const Tokenizer* tokenizer = tokenizer_for(request, chat);
    if (tokenizer == nullptr || request.segments.empty()) {
        return false;
    }
    // The memo key joins the content with the tokenizer.
    const Hash128 salt = hash_bytes(tokenizer->traits().name);
    std::vector<std::int64_t> counts;
    counts.reserve(request.segments.size());
    for (const auto& s : request.segments) {
        if (s.kind == model::SegmentKind::unlogged) {
            counts.push_back(0);
            continue;
        }
        const Hash128 key{s.content.low ^ salt.low, s.content.high ^ salt.high};
        if (const auto it = m_memo.find(key); it != m_memo.end()) {
            ++m_memo_hits;
            counts.push_back(it->second);
            continue;
        }
        const auto rendered = store.get(s.content);
        if (!rendered) {
            return false; // no text to count: keep the estimates
        }
        const auto n =
            static_cast<std::int64_t>(tokenizer->count(analysis::display_text(*rendered, s.kind)));
        ++m_counted;
        m_memo.emplace(key, n);
        counts.push_back(n);
    }
    std::optional<std::size_t> first;
    std::size_t last = 0;
    for (std::size_t i = 0; i < request.segments.size(); ++i) {
        auto& s = request.segments[i];
        if (s.kind == model::SegmentKind::unlogged) {
            continue;
        }
        std::int64_t n = counts[i];
        if (s.message_start) {
            n += message_overhead(chat, s.role);
        }
        s.estimate = static_cast<float>(n);
        s.token_source = model::TokenSource::exact;
        first = first.value_or(i);
        last = i;
    }
    if (first && chat != nullptr) {
        request.segments[*first].estimate += static_cast<float>(chat->start);
        request.segments[last].estimate += static_cast<float>(chat->end);
    }
    model::assign_tokens(request);
    return true;
}

} // namespace cachewise::tokenize
