#pragma once

#include "tokenize/vocabulary.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace cachewise::tokenize {

// Remembers the tokens of recent pieces (words, indentation, JSON keys): a
// log says the same words again and again, and a lookup is far cheaper than
// a merge, or than a look-up in the vocabulary's 200k-token table (three
// cache misses). Exact, because BPE never merges across pieces: a piece's
// tokens do not depend on its neighbours. A slot holds the piece's first
// bytes and, for a one-token piece, the token itself, so a hit on a short
// piece reads one cache line. Bounded: when full it starts over, so memory
// stays flat on any input. Pieces longer than k_max_piece are not kept.
class PieceCache {
public:
    static constexpr std::size_t k_max_piece = 64;

    PieceCache();
    // The tokens of `piece` (hashed with hash()), if it is kept. The span
    // stays valid until the next add().
    [[nodiscard]] std::optional<std::span<const TokenId>> find(std::string_view piece,
                                                               std::uint64_t hash) const;
    void add(std::string_view piece, std::uint64_t hash, std::span<const TokenId> tokens);
    [[nodiscard]] static std::uint64_t hash(std::string_view piece);
    // Starts reading the slot where `hash` would be: a tokenizer that knows
    // its next pieces asks for them ahead, so that the misses overlap.
    void
    prefetch(std::uint64_t hash) const
    {
        __builtin_prefetch(&m_slots[hash & (k_slots - 1)]);
    }

private:
    static constexpr std::size_t k_slots = 1U << 17;
    static constexpr std::size_t k_head = 12; // bytes of the piece kept in its slot
    struct Slot {
        std::uint64_t hash = 0;
        std::uint32_t key = 0;    // offset of the piece's bytes past k_head in m_keys
        std::uint32_t tokens = 0; // the token of a one-token piece, else an offset in m_tokens
        std::uint16_t key_length = 0;
        std::uint16_t token_count = 0; // 0: empty slot
        std::array<char, k_head> head{};
    };
    static_assert(sizeof(Slot) == 32);
    [[nodiscard]] bool same(const Slot& s, std::string_view piece) const;
    void clear();

    std::vector<Slot> m_slots;
    std::string m_keys;
    std::vector<TokenId> m_tokens;
    std::size_t m_used = 0;
};

} // namespace cachewise::tokenize
