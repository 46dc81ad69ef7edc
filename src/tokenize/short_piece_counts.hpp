#pragma once

#include "tokenize/piece_cache.hpp"

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace cachewise::tokenize {

// The token counts of short pieces (up to 8 bytes: most words with their
// space, punctuation, indentation), for Tokenizer::count. A direct-mapped
// table of 8,192 slots (128 KiB) stays in the core's own cache, where the
// piece cache's megabytes do not: on a log's text most look-ups end here,
// and only the rest go out to the piece cache. A slot holds the piece's
// bytes as one word, its length and its count; a clash replaces the slot's
// piece, so the table keeps the pieces seen most recently.
class ShortPieceCounts {
public:
    static constexpr std::size_t k_max_piece = 8;

    ShortPieceCounts() : m_slots(k_slots) {}

    // The count of the piece with this key (PieceCache::key) and length.
    [[nodiscard]] std::optional<std::uint32_t> find(const PieceCache::Key& key,
                                                    std::size_t length) const
    {
        const Slot& s = m_slots[key.hash & (k_slots - 1)];
        if (s.count != 0 && s.length == length && s.word == key.head[0]) {
            return s.count;
        }
        return std::nullopt;
    }
    // Remembers a piece of at most k_max_piece bytes and its count (> 0).
    void put(const PieceCache::Key& key, std::size_t length, std::size_t count)
    {
        Slot& s = m_slots[key.hash & (k_slots - 1)];
        s.word = key.head[0];
        s.length = static_cast<std::uint32_t>(length);
        s.count = static_cast<std::uint32_t>(count);
    }

private:
    static constexpr std::size_t k_slots = std::size_t{1} << 13;
    struct Slot {
        std::uint64_t word = 0; // the piece's bytes, zero past its end
        std::uint32_t length = 0;
        std::uint32_t count = 0; // 0: empty
    };
    std::vector<Slot> m_slots;
};

} // namespace cachewise::tokenize
