// The pre-tokenisers of o200k and of the GPT-4 family (cl100k, llama3,
// qwen2) on ASCII, a byte at a time: most of a log is ASCII, and decoding
// and classifying code points costs more than the bytes' own table. Each
// function follows its expression's alternation exactly as the Unicode
// scanner in pretokenize.cpp does, and gives up as soon as a
// decision would depend on a byte from 0x80 on: a letter, digit or space of
// another script continues a run, U+017F folds to s in a contraction, so
// those pieces are left to the Unicode scanner (k_undecided). A unit test
// holds both equal on random text.
#include "tokenize/pretokenize_ascii.hpp"

#include "tokenize/scanner.hpp"

#include <bit>
#include <cstdint>
#include <cstring>

namespace cachewise::tokenize::detail {

namespace {

// The bytes of `x` (eight of the text, the first in the low byte) that lie
// in [lo, hi], as the top bit of each byte: a word of letters is measured
// eight bytes at a time instead of a branch per byte, whose end the
// processor cannot guess. Bytes from 0x80 on are never in range.
constexpr std::uint64_t
bytes_in_range(std::uint64_t x, unsigned char lo, unsigned char hi)
{
    constexpr std::uint64_t k_ones = 0x0101010101010101ULL;
    constexpr std::uint64_t k_tops = 0x8080808080808080ULL;
    const std::uint64_t low7 = x & ~k_tops; // no carry can cross a byte below
    const std::uint64_t at_least_lo = (low7 + (0x80 - lo) * k_ones) & k_tops;
    const std::uint64_t above_hi = (low7 + (0x7F - hi) * k_ones) & k_tops;
    return at_least_lo & ~above_hi & ~x & k_tops;
}

// The end of the run of bytes in [lo, hi] (ASCII letters of one case) from
// `p` in `b[0, n)`.
std::size_t
ascii_run(const unsigned char* b, std::size_t p, std::size_t n, unsigned char lo, unsigned char hi)
{
    if constexpr (std::endian::native == std::endian::little) {
        for (; p + 8 <= n; p += 8) {
            std::uint64_t x = 0;
            std::memcpy(&x, b + p, 8);
            const std::uint64_t outside = ~bytes_in_range(x, lo, hi) & 0x8080808080808080ULL;
            if (outside != 0) {
                return p + static_cast<std::size_t>(std::countr_zero(outside) / 8);
            }
        }
    }
    while (p < n && b[p] >= lo && b[p] <= hi) {
        ++p;
    }
    return p;
}

class Ascii {
public:
    explicit Ascii(std::string_view text)
        : m_b(reinterpret_cast<const unsigned char*>(text.data())), m_n(text.size())
    {}

    // The end of the run of ASCII capitals, or of small letters, from `p`.
    [[nodiscard]] std::size_t upper_run(std::size_t p) const
    {
        return ascii_run(m_b, p, m_n, 'A', 'Z');
    }
    [[nodiscard]] std::size_t lower_run(std::size_t p) const
    {
        return ascii_run(m_b, p, m_n, 'a', 'z');
    }

    [[nodiscard]] std::size_t size() const { return m_n; }
    [[nodiscard]] unsigned char at(std::size_t p) const { return m_b[p]; }
    // True when `p` is in the text and holds a byte that is not ASCII.
    [[nodiscard]] bool high(std::size_t p) const { return p < m_n && m_b[p] >= 0x80; }
    [[nodiscard]] std::uint16_t cls(std::size_t p) const
    {
        return p < m_n && m_b[p] < 0x80 ? k_ascii_classes[m_b[p]] : 0;
    }
    // The end of the run of ASCII bytes from `p` whose class has a bit of
    // `mask`.
    [[nodiscard]] std::size_t run(std::size_t p, std::uint16_t mask) const
    {
        while (p < m_n && m_b[p] < 0x80 && (k_ascii_classes[m_b[p]] & mask) != 0) {
            ++p;
        }
        return p;
    }

private:
    const unsigned char* m_b;
    std::size_t m_n;
};

bool
is_crlf(unsigned char c)
{
    return c == '\r' || c == '\n';
}

// [^\r\n\p{L}\p{N}] at `p`, an ASCII byte.
bool
is_prefix(const Ascii& s, std::size_t p)
{
    return !is_crlf(s.at(p)) && (s.cls(p) & (k_letter | k_number)) == 0;
}

// [^\s\p{L}\p{N}] at `p`, an ASCII byte.
bool
is_other(const Ascii& s, std::size_t p)
{
    return (s.cls(p) & (k_space | k_letter | k_number)) == 0;
}

unsigned char
fold(unsigned char c)
{
    return c >= 'A' && c <= 'Z' ? static_cast<unsigned char>(c + 32) : c;
}

// (?i:'s|'t|'re|'ve|'m|'ll|'d) at `p`: its end, `p` when none, or k_undecided.
std::size_t
contraction(const Ascii& s, std::size_t p)
{
    if (p >= s.size() || s.at(p) != '\'' || p + 1 >= s.size()) {
        return p;
    }
    if (s.high(p + 1)) {
        return k_undecided;
    }
    const unsigned char x = fold(s.at(p + 1));
    if (x == 's' || x == 't' || x == 'm' || x == 'd') {
        return p + 2;
    }
    if (p + 2 >= s.size()) {
        return p;
    }
    if (s.high(p + 2)) {
        return k_undecided;
    }
    const unsigned char y = fold(s.at(p + 2));
    const bool two = (x == 'l' && y == 'l') || (x == 'v' && y == 'e') || (x == 'r' && y == 'e');
    return two ? p + 3 : p;
}

// A word and its contraction.
std::size_t
with_contraction(const Ascii& s, std::size_t e)
{
    const std::size_t k = contraction(s, e);
    return k == k_undecided ? k_undecided : (k > e ? k : e);
}

// \p{N}{1,max} at `p` (a digit).
std::size_t
digits(const Ascii& s, std::size_t p, std::size_t max)
{
    std::size_t e = p;
    while (e - p < max && e < s.size() && s.cls(e) == k_number) {
        ++e;
    }
    return e - p < max && s.high(e) ? k_undecided : e;
}

// ` ?[^\s\p{L}\p{N}]+` then a run of `tail` bytes (CR and LF, o200k also /):
// its end, `p` when none, or k_undecided.
std::size_t
other(const Ascii& s, std::size_t p, bool slash)
{
    std::size_t q = p;
    if (s.at(q) == ' ' && q + 1 < s.size()) {
        ++q;
    }
    if (s.high(q)) {
        return k_undecided;
    }
    if (q >= s.size() || !is_other(s, q)) {
        return p;
    }
    while (q < s.size() && s.at(q) < 0x80 && is_other(s, q)) {
        ++q;
    }
    if (s.high(q)) {
        return k_undecided;
    }
    while (q < s.size() && (is_crlf(s.at(q)) || (slash && s.at(q) == '/'))) {
        ++q;
    }
    return q;
}

// The whitespace alternatives at `p` (see detail::match_whitespace).
std::size_t
whitespace(const Ascii& s, std::size_t p, bool trailing_run)
{
    const std::size_t end = s.run(p, k_space);
    if (s.high(end)) {
        return k_undecided;
    }
    if (trailing_run && end == s.size()) {
        return end;
    }
    for (std::size_t k = end; k > p;) {
        --k;
        if (is_crlf(s.at(k))) {
            return k + 1;
        }
    }
    if (end == s.size()) {
        return end;
    }
    return end - 1 > p ? end - 1 : end;
}

// o200k's word at `p` (a letter): [A-Z]*[a-z]+ or else [A-Z]+, as the
// alternatives U*W+ and U+W* take ASCII letters.
std::size_t
o200k_word(const Ascii& s, std::size_t p)
{
    const std::size_t r = s.lower_run(s.upper_run(p));
    return s.high(r) ? k_undecided : with_contraction(s, r);
}

// The commonest o200k pieces, a word of ASCII letters with or without one
// space before it, without the calls and class look-ups of the general
// path: its end, or 0 where the general path must decide (no such word, a
// byte from 0x80 on or an apostrophe after it). The same alternatives as
// next_o200k_ascii takes for these pieces.
std::size_t
quick_o200k_word(const unsigned char* b, std::size_t n, std::size_t i)
{
    const std::size_t p = b[i] == ' ' ? i + 1 : i;
    if (p >= n || !((b[p] >= 'a' && b[p] <= 'z') || (b[p] >= 'A' && b[p] <= 'Z'))) {
        return 0;
    }
    // Most words start in lower case: their run of capitals is empty.
    const std::size_t q = b[p] <= 'Z' ? ascii_run(b, p, n, 'A', 'Z') : p;
    const std::size_t r = ascii_run(b, q, n, 'a', 'z');
    return r < n && (b[r] >= 0x80 || b[r] == '\'') ? 0 : r;
}

} // namespace

std::size_t
next_o200k_ascii(std::string_view text, std::size_t i)
{
    const Ascii s(text);
    const std::uint16_t c = s.cls(i);
    if ((c & k_letter) != 0) {
        return o200k_word(s, i);
    }
    if ((c & k_number) != 0) {
        return digits(s, i, 3);
    }
    if (is_prefix(s, i) && i + 1 < s.size()) {
        if (s.high(i + 1)) {
            return k_undecided;
        }
        if ((s.cls(i + 1) & k_letter) != 0) {
            return o200k_word(s, i + 1);
        }
    }
    const std::size_t e = other(s, i, true);
    if (e != i) {
        return e;
    }
    return whitespace(s, i, false);
}

std::size_t
next_gpt4_ascii(std::string_view text, std::size_t i, std::size_t max_digits, bool trailing_run)
{
    const Ascii s(text);
    if (s.at(i) == '\'') {
        const std::size_t e = contraction(s, i);
        if (e != i) {
            return e;
        }
    }
    const std::uint16_t c = s.cls(i);
    if ((c & k_letter) != 0) {
        const std::size_t e = s.run(i, k_letter);
        return s.high(e) ? k_undecided : e;
    }
    if (is_prefix(s, i) && i + 1 < s.size()) {
        if (s.high(i + 1)) {
            return k_undecided;
        }
        if ((s.cls(i + 1) & k_letter) != 0) {
            const std::size_t e = s.run(i + 1, k_letter);
            return s.high(e) ? k_undecided : e;
        }
    }
    if ((c & k_number) != 0) {
        return digits(s, i, max_digits);
    }
    const std::size_t e = other(s, i, false);
    if (e != i || (c & k_space) == 0) {
        return e;
    }
    return whitespace(s, i, trailing_run);
}

std::size_t
ascii_piece_end(PreTokenizer kind, std::string_view text, std::size_t i)
{
    if (kind == PreTokenizer::o200k) {
        const std::size_t e =
            quick_o200k_word(reinterpret_cast<const unsigned char*>(text.data()), text.size(), i);
        return e != 0 ? e : next_o200k_ascii(text, i);
    }
    return next_gpt4_ascii(text, i, kind == PreTokenizer::qwen2 ? 1 : 3,
                           kind == PreTokenizer::cl100k);
}

std::size_t
split_ascii(PreTokenizer kind, std::string_view text, std::size_t i, std::size_t& budget,
            std::vector<std::string_view>& pieces)
{
    const auto* bytes = reinterpret_cast<const unsigned char*>(text.data());
    while (i < text.size() && budget > 0 && bytes[i] < 0x80) {
        const std::size_t e = ascii_piece_end(kind, text, i);
        if (e == k_undecided) {
            break;
        }
        pieces.push_back(text.substr(i, e - i));
        --budget;
        i = e;
    }
    return i;
}

} // namespace cachewise::tokenize::detail
