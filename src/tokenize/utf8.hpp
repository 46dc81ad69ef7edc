#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace cachewise::tokenize {

// True when `text` is well-formed UTF-8 (no overlongs, surrogates or values
// past U+10FFFF).
[[nodiscard]] bool is_valid_utf8(std::string_view text);

// Replaces every ill-formed sequence with U+FFFD the way the WHATWG decoder
// (TextDecoder, and so the JavaScript reference tokenizers) does: one
// replacement per maximal subpart of a sequence. Logs hold such bytes where
// a tool cut a multi-byte character; providers decode them like this before
// they tokenise.
[[nodiscard]] std::string repair_utf8(std::string_view text);

// One code point of well-formed UTF-8 at `p` (at least one byte before
// `end`): its value and its length in bytes.
struct CodePoint {
    char32_t value;
    std::uint32_t length;
};

inline CodePoint
decode_utf8(const unsigned char* p, const unsigned char* end)
{
    const unsigned char c = *p;
    if (c < 0x80) {
        return {c, 1};
    }
    if (c < 0xE0 && p + 1 < end) {
        return {static_cast<char32_t>(((c & 0x1FU) << 6) | (p[1] & 0x3FU)), 2};
    }
    if (c < 0xF0 && p + 2 < end) {
        return {static_cast<char32_t>(((c & 0x0FU) << 12) | ((p[1] & 0x3FU) << 6) | (p[2] & 0x3FU)),
                3};
    }
    if (p + 3 < end) {
        return {static_cast<char32_t>(((c & 0x07U) << 18) | ((p[1] & 0x3FU) << 12) |
                                      ((p[2] & 0x3FU) << 6) | (p[3] & 0x3FU)),
                4};
    }
    return {0xFFFD, 1}; // truncated: cannot happen after repair_utf8
}

} // namespace cachewise::tokenize
