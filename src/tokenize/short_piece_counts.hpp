#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
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

    // The bytes of `piece` (zero past its end) as one word, read straight
    // from the text that ends at `text_end`; nothing for a piece longer
    // than k_max_piece or one in the text's last 8 bytes.
    [[nodiscard]] static std::optional<std::uint64_t> word_of(std::string_view piece,
                                                              const char* text_end)
    {
        const std::size_t n = piece.size();
        if (n > k_max_piece || text_end - piece.data() < 8) {
            return std::nullopt;
        }
        std::uint64_t word = 0;
        std::memcpy(&word, piece.data(), 8);
        if constexpr (std::endian::native == std::endian::little) {
            return n >= 8 ? word : word & ~(~std::uint64_t{0} << (8 * n));
        } else {
            return n >= 8 ? word : word & ~(~std::uint64_t{0} >> (8 * n));
        }
    }

    // The count of the piece whose word_of is `word` and whose length is
    // `length`.
    [[nodiscard]] std::optional<std::uint32_t> find(std::uint64_t word, std::size_t length) const
    {
        const Slot& s = m_slots[slot_of(word, length)];
        if (s.count != 0 && s.length == length && s.word == word) {
            return s.count;
        }
        return std::nullopt;
    }
    // Remembers a short piece and its count (> 0).
    void put(std::uint64_t word, std::size_t length, std::size_t count)
    {
        Slot& s = m_slots[slot_of(word, length)];
        s.word = word;
        s.length = static_cast<std::uint32_t>(length);
        s.count = static_cast<std::uint32_t>(count);
    }

private:
    static constexpr unsigned k_bits = 13;
    static constexpr std::size_t k_slots = std::size_t{1} << k_bits;
    // Fibonacci hashing: one multiply, the top bits.
    static std::size_t slot_of(std::uint64_t word, std::size_t length)
    {
        return static_cast<std::size_t>(((word ^ length) * 0x9E3779B97F4A7C15ULL) >> (64 - k_bits));
    }
    struct Slot {
        std::uint64_t word = 0; // the piece's bytes, zero past its end
        std::uint32_t length = 0;
        std::uint32_t count = 0; // 0: empty
    };
    std::vector<Slot> m_slots;
};

} // namespace cachewise::tokenize
