#pragma once

#include "tokenize/vocabulary.hpp"

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace cachewise::tokenize {

// Byte-pair merging of one pre-tokenised piece: start from its bytes'
// tokens and merge, again and again, the adjacent pair of lowest rank
// (the leftmost of equal ranks) until no pair merges. This is tiktoken's
// _byte_pair_merge and Hugging Face's BPE word merge alike. A heap keeps
// long pieces (runs of spaces, base64) at O(n log n) instead of tiktoken's
// O(n^2). A vocabulary without a merge list (a tiktoken rank file) merges
// a pair when the bytes it covers are a token, ranked by that token, as
// tiktoken does; one with a list (tokenizer.json) looks the pair up.
class BpeMerger {
public:
    // Appends the tokens of `piece` to `out`. A byte with no token (not in
    // a byte-level vocabulary) is an error the loaders rule out.
    void merge(const Vocabulary& vocab, std::string_view piece, std::vector<TokenId>& out);

private:
    struct Symbol {
        TokenId id;
        std::int32_t prev;
        std::int32_t next;
        std::uint32_t begin; // bytes of the piece this symbol covers
        std::uint32_t end;
    };
    struct Candidate {
        std::uint32_t rank;
        std::int32_t left;
        TokenId left_id;
        TokenId right_id;
        TokenId merged;
    };
    static constexpr std::uint64_t k_no_pair = ~0ULL;
    static constexpr TokenId k_no_token = 0xFFFFFFFFU;
    struct PairSlot {
        std::uint64_t key = k_no_pair;
        TokenId token = k_no_token;
    };
    static constexpr std::size_t k_pair_slots = std::size_t{1} << 15;

    void push(const Vocabulary& vocab, std::string_view piece, std::int32_t left);
    // The token of the bytes of two adjacent symbols, if there is one (a
    // rank file's merge): remembered by the pair of ids, since the same
    // pairs come up in piece after piece and the vocabulary's table costs
    // a few cache misses a look-up. A merger serves one vocabulary.
    std::optional<TokenId> joined(const Vocabulary& vocab, std::string_view piece, const Symbol& l,
                                  const Symbol& r);

    std::vector<Symbol> m_symbols; // scratch, reused between pieces
    std::vector<Candidate> m_heap;
    std::vector<PairSlot> m_pairs{}; // (left, right) -> token, for rank files
    std::size_t m_pairs_used = 0;
};

} // namespace cachewise::tokenize
