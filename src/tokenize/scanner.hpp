#pragma once

#include "tokenize/unicode_class.hpp"
#include "tokenize/utf8.hpp"

#include <array>
#include <cstddef>
#include <string_view>

namespace cachewise::tokenize::detail {

// char_class of each ASCII code point, as a constant (a function-local
// static would be checked for initialisation on every character); a unit
// test holds it equal to char_class.
constexpr std::array<std::uint16_t, 128>
make_ascii_classes()
{
    std::array<std::uint16_t, 128> t{};
    for (char32_t c = 0; c < 128; ++c) {
        if ((c >= U'\t' && c <= U'\r') || c == U' ') {
            t[c] = k_space;
        } else if (c >= U'A' && c <= U'Z') {
            t[c] = k_letter | k_upper;
        } else if (c >= U'a' && c <= U'z') {
            t[c] = k_letter | k_lower;
        } else if (c >= U'0' && c <= U'9') {
            t[c] = k_number;
        } else if (c == U'$' || c == U'+' || (c >= U'<' && c <= U'>') || c == U'^' || c == U'`' ||
                   c == U'|' || c == U'~') {
            t[c] = k_symbol;
        } else if (c > U' ' && c < 127) {
            t[c] = k_punctuation;
        }
    }
    return t;
}

inline constexpr std::array<std::uint16_t, 128> k_ascii_classes = make_ascii_classes();

// Reads code points and their classes out of well-formed UTF-8, with a table
// for ASCII (most of every log). Positions are byte offsets.
class Scanner {
public:
    struct Char {
        char32_t cp = 0;
        std::uint16_t cls = 0;
        std::uint32_t length = 0;
    };

    explicit Scanner(std::string_view text)
        : m_begin(reinterpret_cast<const unsigned char*>(text.data())), m_size(text.size())
    {}

    [[nodiscard]] std::size_t size() const { return m_size; }

    [[nodiscard]] Char at(std::size_t i) const
    {
        const unsigned char c = m_begin[i];
        if (c < 0x80) {
            return {c, ascii_classes()[c], 1};
        }
        const auto d = decode_utf8(m_begin + i, m_begin + m_size);
        return {d.value, char_class(d.value), d.length};
    }

    // The end of the run of characters from `i` whose class satisfies `pred`.
    template <typename Pred> [[nodiscard]] std::size_t run(std::size_t i, Pred pred) const
    {
        while (i < m_size) {
            const Char c = at(i);
            if (!pred(c)) {
                break;
            }
            i += c.length;
        }
        return i;
    }

    // The byte offset of the last character that starts before `end`.
    [[nodiscard]] std::size_t last_start(std::size_t end) const
    {
        std::size_t i = end - 1;
        while (i > 0 && (m_begin[i] & 0xC0U) == 0x80U) {
            --i;
        }
        return i;
    }

private:
    static const std::array<std::uint16_t, 128>& ascii_classes() { return k_ascii_classes; }

    const unsigned char* m_begin;
    std::size_t m_size;
};

inline bool
is_letter(const Scanner::Char& c)
{
    return (c.cls & k_letter) != 0;
}
inline bool
is_number(const Scanner::Char& c)
{
    return (c.cls & k_number) != 0;
}
inline bool
is_space(const Scanner::Char& c)
{
    return (c.cls & k_space) != 0;
}
inline bool
is_crlf(const Scanner::Char& c)
{
    return c.cp == U'\r' || c.cp == U'\n';
}

// (?i:'s|'t|'re|'ve|'m|'ll|'d) at `i`: the end of the match, or `i`. The
// Rust engines fold case by Unicode, so U+017F (long s) counts as s.
std::size_t match_contraction(const Scanner& s, std::size_t i);

// The whitespace alternatives that close every family's expression, at `i`
// (a whitespace character), in the older form `\s*[\r\n]+|\s+(?!\S)|\s+` or,
// with `trailing_run`, cl100k's current `\s++$|\s*[\r\n]|\s+(?!\S)|\s`.
std::size_t match_whitespace(const Scanner& s, std::size_t i, bool trailing_run);

} // namespace cachewise::tokenize::detail
