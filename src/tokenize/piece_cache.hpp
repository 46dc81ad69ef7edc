#pragma once

#include "tokenize/vocabulary.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace cachewise::tokenize {

// Remembers the tokens of recent pieces (words, indentation, JSON keys): a
// log says the same words again and again, and a lookup is far cheaper than
// a merge. Bounded: when full it starts over, so memory stays flat on any
// input. Pieces longer than k_max_piece are not kept.
class PieceCache {
public:
    static constexpr std::size_t k_max_piece = 64;

    PieceCache();
    [[nodiscard]] std::optional<std::span<const TokenId>> find(std::string_view piece) const;
    void add(std::string_view piece, std::span<const TokenId> tokens);

private:
    struct Slot {
        std::uint64_t hash = 0;
        std::uint32_t key = 0;    // offset of the piece in m_keys
        std::uint32_t tokens = 0; // offset of its tokens in m_tokens
        std::uint16_t key_length = 0;
        std::uint16_t token_count = 0; // 0: empty slot
    };
    void clear();

    std::vector<Slot> m_slots;
    std::string m_keys;
    std::vector<TokenId> m_tokens;
    std::size_t m_used = 0;
};

} // namespace cachewise::tokenize
