#pragma once

#include "model/request.hpp"
#include "model/text_store.hpp"
#include "tokenize/catalogue.hpp"
#include "tokenize/count_memo.hpp"
#include "util/hash.hpp"

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace cachewise::tokenize {

// False for the providers that do not publish their tokenizers
// (Anthropic, Gemini, Bedrock): their counts stay estimated.
bool tokenizer_is_public(std::string_view provider);

// Replaces the estimates of a request by counts from its model's own
// tokenizer: each segment's text (model::display_text of its rendered bytes) plus the chat
// template's tokens around each message. Counts are memoised by content hash, so a log that resends
// its history is tokenised once per distinct segment. Requests of providers whose tokenizers are
// not public (Anthropic, Gemini, Bedrock) and of models the manifest does not map are left to the
// estimator; so are those whose vocabulary file is not at hand (not shipped, no --tokenizer-dir),
// which missing_notes() lists.
class ExactCounts {
public:
    explicit ExactCounts(Catalogue& catalogue) : m_catalogue(&catalogue) {}

    // One of several threads' counters over one catalogue: counts are
    // memoised in `shared` too, across the threads; each counts with its
    // own clone of the catalogue's tokenizers (their caches are not
    // thread-safe), which it asks for under `catalogue_mutex`.
    ExactCounts(Catalogue& catalogue, SharedCountMemo& shared, std::mutex& catalogue_mutex)
        : m_catalogue(&catalogue), m_shared(&shared), m_catalogue_mutex(&catalogue_mutex)
    {}

    // True when the request's segments now hold exact counts (token_source
    // exact) and their tokens and positions were reassigned. Errors loading
    // a vocabulary that is there (checksum, format) are thrown (Error), once.
    bool apply(model::Request& request, const model::TextStore& store);
    // The tokens of `text` by `model`'s tokenizer; nothing when the model has
    // none at hand (a token position inside a segment, for a finding).
    std::optional<std::int64_t> count_text(const std::string& model, std::string_view text);

    [[nodiscard]] std::uint64_t segments_counted() const { return m_counted; }
    [[nodiscard]] std::uint64_t segments_memoised() const { return m_memo_hits; }
    // Bytes of text tokenised (memo hits excluded).
    [[nodiscard]] std::uint64_t bytes_counted() const { return m_bytes; }
    [[nodiscard]] std::uint64_t requests_counted() const { return m_requests; }
    // The tokenizer of the last request apply() counted.
    [[nodiscard]] const std::string& last_tokenizer() const { return m_last; }
    // The tokenizers of the requests counted, by name.
    [[nodiscard]] const std::set<std::string>& tokenizers_used() const { return m_used; }
    // One line per vocabulary that was wanted and not found: which, why,
    // and how many requests of which models keep estimated counts.
    [[nodiscard]] std::vector<std::string> missing_notes() const;
    // Adds what `other` counted, and the vocabularies it missed, to this
    // one's tallies (the last tokenizer stays this one's).
    void absorb(const ExactCounts& other);

private:
    // What a model's requests are counted with, found once per model name.
    struct Resolved {
        const Tokenizer* tokenizer = nullptr; // null: estimated
        const ChatTemplate* chat = nullptr;
        Hash128 salt{};            // joins the memo key with the tokenizer
        std::string missing_entry; // the vocabulary that is not at hand
    };
    struct Missing {
        std::string reason;
        std::uint64_t requests = 0;
        std::set<std::string> models;
    };
    const Resolved& resolve(const std::string& model);
    // The catalogue's tokenizer, or this thread's clone of it.
    const Tokenizer* tokenizer_for(const TokenizerEntry& entry);
    // The thread's own memo first, without a lock (a log resends what this
    // thread saw); then the one it shares with the other threads.
    [[nodiscard]] std::optional<std::int64_t> memoised(const Hash128& key)
    {
        if (const auto hit = m_memo.find(key); hit || m_shared == nullptr) {
            return hit;
        }
        const auto hit = m_shared->find(key);
        if (hit) {
            m_memo.add(key, *hit);
        }
        return hit;
    }
    void memoise(const Hash128& key, std::int64_t count)
    {
        m_memo.add(key, count);
        if (m_shared != nullptr) {
            m_shared->add(key, count);
        }
    }

    Catalogue* m_catalogue;
    std::unordered_map<std::string, Resolved> m_models;
    CountMemo m_memo;
    SharedCountMemo* m_shared = nullptr;
    std::mutex* m_catalogue_mutex = nullptr;
    std::map<std::string, std::unique_ptr<Tokenizer>> m_clones; // by vocabulary
    std::map<std::string, Missing> m_missing;                   // by tokenizer name
    std::set<std::string> m_used;
    std::string m_last;
    std::vector<std::int64_t> m_counts; // per segment of the request at hand
    std::uint64_t m_counted = 0;
    std::uint64_t m_memo_hits = 0;
    std::uint64_t m_requests = 0;
    std::uint64_t m_bytes = 0;
};

} // namespace cachewise::tokenize
