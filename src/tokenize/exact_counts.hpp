#pragma once

#include "model/request.hpp"
#include "model/text_store.hpp"
#include "tokenize/catalogue.hpp"
#include "util/hash.hpp"

#include <cstdint>
#include <string>
#include <unordered_map>

namespace cachewise::tokenize {

// Replaces the estimates of a request by counts from its model's own
// tokenizer: each segment's text (analysis::display_text of its rendered
// bytes) plus the chat template's tokens around each message. Counts are
// memoised by content hash, so a log that resends its history is
// tokenised once per distinct segment. Requests of providers whose
// tokenizers are not public (Anthropic, Gemini, Bedrock) and of models
// the manifest does not map are left to the estimator.
class ExactCounts {
public:
    explicit ExactCounts(Catalogue& catalogue) : m_catalogue(&catalogue) {}

    // True when the request's segments now hold exact counts (token_source
    // exact) and their tokens and positions were reassigned. Errors loading
    // a vocabulary are thrown (Error), once.
    bool apply(model::Request& request, const model::TextStore& store);

    [[nodiscard]] std::uint64_t
    segments_counted() const
    {
        return m_counted;
    }
    [[nodiscard]] std::uint64_t
    segments_memoised() const
    {
        return m_memo_hits;
    }

private:
    const Tokenizer* tokenizer_for(const model::Request& request, const ChatTemplate*& chat);

    Catalogue* m_catalogue;
    std::unordered_map<Hash128, std::int64_t, Hash128Hasher> m_memo;
    std::uint64_t m_counted = 0;
    std::uint64_t m_memo_hits = 0;
};

} // namespace cachewise::tokenize
