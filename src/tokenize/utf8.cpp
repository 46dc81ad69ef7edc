#include "tokenize/utf8.hpp"

#include <simdjson.h>

namespace cachewise::tokenize {

namespace {

// The length of the well-formed sequence at text[i], or of its maximal
// subpart (negated, at least 1) when it is ill-formed. Bounds of the second
// byte follow the Unicode table "Well-Formed UTF-8 Byte Sequences".
int
sequence_at(std::string_view text, std::size_t i)
{
    const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
    const unsigned char c = byte(i);
    if (c < 0x80) {
        return 1;
    }
    int need = 0;
    unsigned char low = 0x80;
    unsigned char high = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) {
        need = 1;
    } else if (c >= 0xE0 && c <= 0xEF) {
        need = 2;
        low = c == 0xE0 ? 0xA0 : 0x80;
        high = c == 0xED ? 0x9F : 0xBF;
    } else if (c >= 0xF0 && c <= 0xF4) {
        need = 3;
        low = c == 0xF0 ? 0x90 : 0x80;
        high = c == 0xF4 ? 0x8F : 0xBF;
    } else {
        return -1;
    }
    for (int k = 1; k <= need; ++k) {
        const std::size_t at = i + static_cast<std::size_t>(k);
        if (at >= text.size()) {
            return -k;
        }
        const unsigned char b = byte(at);
        const unsigned char lo = k == 1 ? low : 0x80;
        const unsigned char hi = k == 1 ? high : 0xBF;
        if (b < lo || b > hi) {
            return -k;
        }
    }
    return need + 1;
}

} // namespace

bool
is_valid_utf8(std::string_view text)
{
    // simdjson's validator (SIMD, the kernel of this CPU) checks the same
    // well-formedness as sequence_at, many bytes per cycle.
    return simdjson::validate_utf8(text.data(), text.size());
}

std::string
repair_utf8(std::string_view text)
{
    std::string out;
    out.reserve(text.size() + 8);
    std::size_t i = 0;
    while (i < text.size()) {
        const int n = sequence_at(text, i);
        if (n > 0) {
            out.append(text.substr(i, static_cast<std::size_t>(n)));
            i += static_cast<std::size_t>(n);
        } else {
            out.append("\xEF\xBF\xBD");
            i += static_cast<std::size_t>(-n);
        }
    }
    return out;
}

} // namespace cachewise::tokenize
