#pragma once

#include "tokenize/vocabulary.hpp"

#include <bit>
#include <cstdint>
#include <cstring>
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
// tokens do not depend on its neighbours. A slot holds the piece's first 16
// bytes as two words and, for a one-token piece, the token itself, so a hit
// on a short piece (most are) is two compares in one cache line. Bounded:
// when full (2^16 pieces) it starts over, so memory stays flat on any input. Pieces
// longer than k_max_piece are not kept.
class PieceCache {
public:
    static constexpr std::size_t k_max_piece = 64;
    static constexpr std::size_t k_head = 16; // bytes of a piece in its key

    // A piece's first 16 bytes (zero past its end) and its hash.
    struct Key {
        std::uint64_t head[2];
        std::uint64_t hash;
    };

    PieceCache();
    // The key of `piece`, a view into a text that ends at `text_end`: a
    // short piece is read as two words straight from the text when 16
    // bytes remain in it.
    [[nodiscard]] static Key key(std::string_view piece, const char* text_end)
    {
        Key k{{0, 0}, 0};
        if (piece.size() > k_head || static_cast<std::size_t>(text_end - piece.data()) < k_head) {
            return long_key(piece);
        }
        std::memcpy(&k.head[0], piece.data(), 8);
        std::memcpy(&k.head[1], piece.data() + 8, 8);
        const std::size_t n = piece.size();
        k.head[0] &= byte_mask(n);
        k.head[1] &= byte_mask(n > 8 ? n - 8 : 0);
        k.hash = mix(k.head[0], k.head[1], n);
        return k;
    }
    // The tokens of `piece` (with its key()), if it is kept. The span stays
    // valid until the next add().
    [[nodiscard]] std::optional<std::span<const TokenId>> find(std::string_view piece,
                                                               const Key& key) const;
    void add(std::string_view piece, const Key& key, std::span<const TokenId> tokens);
    // Starts reading the slot where `key` would be: a tokenizer that knows
    // its next pieces asks for them ahead, so that the misses overlap.
    void prefetch(const Key& key) const
    {
        __builtin_prefetch(&m_slots[key.hash & (m_slots.size() - 1)]);
    }

private:
    // A mask of a word's first `n` bytes (all of them from 8 on).
    static std::uint64_t byte_mask(std::size_t n)
    {
        if constexpr (std::endian::native == std::endian::little) {
            return n >= 8 ? ~std::uint64_t{0} : ~(~std::uint64_t{0} << (8 * n));
        } else {
            return n >= 8 ? ~std::uint64_t{0} : ~(~std::uint64_t{0} >> (8 * n));
        }
    }
    static std::uint64_t mix(std::uint64_t a, std::uint64_t b, std::uint64_t n)
    {
        std::uint64_t h = (a ^ 0x9E3779B97F4A7C15ULL) * 0xBF58476D1CE4E5B9ULL;
        h ^= (b + n) * 0x94D049BB133111EBULL;
        h ^= h >> 31;
        h *= 0xD6E8FEB86659FD93ULL;
        return h ^ (h >> 32);
    }
    // The key of a piece longer than 16 bytes, or of one at the text's end.
    static Key long_key(std::string_view piece);

    // The table starts small and doubles when half full, so that the slots
    // of a log's few thousand distinct pieces lie close together (they are
    // read between long stretches of other work, from the outer caches).
    static constexpr std::size_t k_min_slots = std::size_t{1} << 12;
    static constexpr std::size_t k_max_slots = std::size_t{1} << 17;
    struct Slot {
        std::uint64_t head[2] = {0, 0};
        std::uint32_t key = 0;    // offset of the piece's bytes past k_head in m_keys
        std::uint32_t tokens = 0; // the token of a one-token piece, else an offset in m_tokens
        std::uint16_t key_length = 0;
        std::uint16_t token_count = 0; // 0: empty slot
    };
    [[nodiscard]] bool same(const Slot& s, std::string_view piece, const Key& key) const;
    [[nodiscard]] std::size_t free_slot(std::uint64_t hash) const;
    [[nodiscard]] std::uint64_t hash_of(const Slot& s) const;
    void grow();
    void clear();

    std::vector<Slot> m_slots;
    std::string m_keys;
    std::vector<TokenId> m_tokens;
    std::size_t m_used = 0;
};

} // namespace cachewise::tokenize
