#pragma once

#include "tokenize/bpe.hpp"
#include "tokenize/piece_cache.hpp"
#include "tokenize/pretokenize.hpp"
#include "tokenize/short_piece_counts.hpp"
#include "tokenize/vocabulary.hpp"

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cachewise::tokenize {

// How a family turns text into tokens, besides its vocabulary.
struct TokenizerTraits {
    std::string name; // o200k_base, cl100k_base, deepseek_v3, ...
    PreTokenizer pre_tokenizer = PreTokenizer::o200k;
    // A piece that is itself a token is that token, without merging:
    // tiktoken always does this; tokenizer.json says so with ignore_merges.
    bool whole_piece_first = true;
    // Text is put in Unicode NFC first (Qwen's tokenizer.json normalizer).
    bool nfc = false;
    // Special tokens by their text (<|endoftext|>, <｜User｜>), for chat
    // templates and --ids; plain text never produces them (tiktoken's
    // encode_ordinary), so a log that quotes one counts it as text.
    std::vector<std::pair<std::string, TokenId>> special_tokens;
    bool operator==(const TokenizerTraits&) const = default;
};

// A byte-level BPE tokenizer: repairs ill-formed UTF-8, pre-tokenises,
// then merges each piece. Not thread-safe: the piece cache and the merge
// scratch are members; clone() gives another thread a tokenizer of its own
// that shares the (immutable) vocabulary.
class Tokenizer {
public:
    Tokenizer(TokenizerTraits traits, Vocabulary vocab);
    // The same traits and vocabulary (shared, not copied), empty caches.
    [[nodiscard]] std::unique_ptr<Tokenizer> clone() const;

    // Appends the tokens of `text` to `out`.
    void encode(std::string_view text, std::vector<TokenId>& out) const;
    [[nodiscard]] std::size_t count(std::string_view text) const;
    // The bytes of a token (or the text of a special token).
    [[nodiscard]] std::string_view token_bytes(TokenId id) const;
    [[nodiscard]] std::optional<TokenId> special(std::string_view text) const;

    [[nodiscard]] const TokenizerTraits& traits() const { return m_traits; }
    [[nodiscard]] const Vocabulary& vocabulary() const { return *m_vocab; }

private:
    Tokenizer(TokenizerTraits traits, std::shared_ptr<const Vocabulary> vocab);

    // The tokens of one piece: from the piece cache, the whole piece when
    // it is a token (and the family says so), else merged. Valid until the
    // next call.
    [[nodiscard]] std::span<const TokenId> piece_tokens(std::string_view piece,
                                                        const PieceCache::Key& key) const;
    [[nodiscard]] std::size_t piece_count(std::string_view piece, const char* end) const;
    // Repairs ill-formed UTF-8, normalises, pre-tokenises, and calls `fn`
    // with each part of at most a few hundred pieces (m_pieces) and the end
    // of the text they lie in.
    template <typename Fn> void for_each_part(std::string_view text, Fn fn) const;

    TokenizerTraits m_traits;
    std::shared_ptr<const Vocabulary> m_vocab; // shared by clones
    mutable PieceCache m_cache;
    mutable ShortPieceCounts m_short; // count() only
    mutable BpeMerger m_merger;
    mutable std::vector<std::string_view> m_pieces;
    mutable std::vector<PieceCache::Key> m_keys; // of m_pieces, for encode()
    mutable std::vector<TokenId> m_scratch;      // the tokens of a piece not in the cache
};

} // namespace cachewise::tokenize
