#include "tokenize/pretokenize.hpp"

#include "tokenize/pretokenize_ascii.hpp"
#include "tokenize/scanner.hpp"

#include <array>
#include <utility>

namespace cachewise::tokenize {

namespace detail {
void deepseek_v3_split(std::string_view text, std::vector<std::string_view>& pieces);
} // namespace detail

using detail::is_crlf;
using detail::is_letter;
using detail::is_number;
using detail::is_space;
using detail::Scanner;

namespace {

constexpr std::array<std::pair<std::string_view, PreTokenizer>, 5> k_names{{
    {"cl100k", PreTokenizer::cl100k},
    {"o200k", PreTokenizer::o200k},
    {"llama3", PreTokenizer::llama3},
    {"qwen2", PreTokenizer::qwen2},
    {"deepseek_v3", PreTokenizer::deepseek_v3},
}};

bool
is_other(const Scanner::Char& c) // [^\s\p{L}\p{N}]
{
    return !is_space(c) && !is_letter(c) && !is_number(c);
}

bool
is_prefix(const Scanner::Char& c) // [^\r\n\p{L}\p{N}]
{
    return !is_crlf(c) && !is_letter(c) && !is_number(c);
}

// \p{N}{1,max}
std::size_t
match_digits(const Scanner& s, std::size_t i, int max)
{
    for (int k = 0; k < max && i < s.size(); ++k) {
        const auto c = s.at(i);
        if (!is_number(c)) {
            break;
        }
        i += c.length;
    }
    return i;
}

// ` ?[^\s\p{L}\p{N}]+` followed by any of `tail` (CR and LF, o200k also /).
template <typename Tail>
std::size_t
match_other(const Scanner& s, std::size_t i, Tail tail)
{
    std::size_t p = i;
    if (s.at(p).cp == U' ' && p + 1 < s.size()) {
        ++p;
    }
    if (p >= s.size() || !is_other(s.at(p))) {
        return i;
    }
    const std::size_t end = s.run(p, is_other);
    return s.run(end, tail);
}

// cl100k, llama3 and qwen2:
//   '(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}|
//   ?[^\s\p{L}\p{N}]+[\r\n]*|<whitespace>
// (qwen2: \p{N} alone). Every character starts a match.
std::size_t
next_gpt4_piece(const Scanner& s, std::size_t i, int digits, bool trailing_run)
{
    const auto c = s.at(i);
    if (c.cp == U'\'') {
        if (const auto e = detail::match_contraction(s, i); e > i) {
            return e;
        }
    }
    if (is_letter(c)) {
        return s.run(i, is_letter);
    }
    if (is_prefix(c) && i + c.length < s.size() && is_letter(s.at(i + c.length))) {
        return s.run(i + c.length, is_letter);
    }
    if (is_number(c)) {
        return match_digits(s, i, digits);
    }
    if (is_space(c)) {
        if (const auto e = match_other(s, i, is_crlf); e > i) {
            return e;
        }
        return detail::match_whitespace(s, i, trailing_run);
    }
    return match_other(s, i, is_crlf);
}

// o200k's letter classes: U = [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}], W = [\p{Ll}\p{Lm}\p{Lo}\p{M}].
bool
is_upper_class(const Scanner::Char& c)
{
    return (c.cls & (k_upper | k_title | k_modifier | k_other_letter | k_mark)) != 0;
}
bool
is_lower_class(const Scanner::Char& c)
{
    return (c.cls & (k_lower | k_modifier | k_other_letter | k_mark)) != 0;
}

// U*W+ at `p` with the backtracking of the greedy U*: the end, or `p`.
std::size_t
match_upper_lower(const Scanner& s, std::size_t p)
{
    const std::size_t q = s.run(p, is_upper_class);
    if (q < s.size() && is_lower_class(s.at(q))) {
        return s.run(q, is_lower_class);
    }
    // Give back characters of U* until one of them can start W+.
    for (std::size_t k = q; k > p;) {
        k = s.last_start(k);
        if (is_lower_class(s.at(k))) {
            return s.at(k).length + k;
        }
    }
    return p;
}

// U+W* at `p`: the end, or `p`.
std::size_t
match_upper_then_lower(const Scanner& s, std::size_t p)
{
    if (p >= s.size() || !is_upper_class(s.at(p))) {
        return p;
    }
    return s.run(s.run(p, is_upper_class), is_lower_class);
}

// One of o200k's word alternatives, [^\r\n\p{L}\p{N}]?<word>(contraction)?,
// trying the optional prefix first as the regex does.
template <typename Word>
std::size_t
match_o200k_word(const Scanner& s, std::size_t i, Word word)
{
    const auto c = s.at(i);
    if (is_prefix(c) && i + c.length < s.size()) {
        if (const auto e = word(s, i + c.length); e > i + c.length) {
            const auto k = detail::match_contraction(s, e);
            return k > e ? k : e;
        }
    }
    if (const auto e = word(s, i); e > i) {
        const auto k = detail::match_contraction(s, e);
        return k > e ? k : e;
    }
    return i;
}

// o200k:
//   [^\r\n\p{L}\p{N}]?U*W+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|
//   [^\r\n\p{L}\p{N}]?U+W*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|
//   \p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+
std::size_t
next_o200k_piece(const Scanner& s, std::size_t i)
{
    if (const auto e = match_o200k_word(s, i, match_upper_lower); e > i) {
        return e;
    }
    if (const auto e = match_o200k_word(s, i, match_upper_then_lower); e > i) {
        return e;
    }
    const auto c = s.at(i);
    if (is_number(c)) {
        return match_digits(s, i, 3);
    }
    const auto tail = [](const Scanner::Char& t) { return is_crlf(t) || t.cp == U'/'; };
    if (const auto e = match_other(s, i, tail); e > i) {
        return e;
    }
    return detail::match_whitespace(s, i, false);
}

// The end of the piece at `i` by the Unicode scanner.
std::size_t
next_piece(PreTokenizer kind, const Scanner& s, std::size_t i)
{
    switch (kind) {
    case PreTokenizer::o200k:
        return next_o200k_piece(s, i);
    case PreTokenizer::cl100k:
        return next_gpt4_piece(s, i, 3, true);
    case PreTokenizer::llama3:
        return next_gpt4_piece(s, i, 3, false);
    default:
        return next_gpt4_piece(s, i, 1, false);
    }
}

} // namespace

namespace detail {

std::size_t
match_contraction(const Scanner& s, std::size_t i)
{
    if (i >= s.size() || s.at(i).cp != U'\'' || i + 1 >= s.size()) {
        return i;
    }
    const auto fold = [](char32_t c) -> char32_t {
        if (c == 0x17F) {
            return U's';
        }
        return c >= U'A' && c <= U'Z' ? c + 32 : c;
    };
    const auto a = s.at(i + 1);
    const char32_t x = fold(a.cp);
    if (x == U's' || x == U't' || x == U'm' || x == U'd') {
        return i + 1 + a.length;
    }
    if (i + 1 + a.length >= s.size()) {
        return i;
    }
    const auto b = s.at(i + 1 + a.length);
    const char32_t y = fold(b.cp);
    if ((x == U'l' && y == U'l') || (x == U'v' && y == U'e') || (x == U'r' && y == U'e')) {
        return i + 1 + a.length + b.length;
    }
    return i;
}

std::size_t
match_whitespace(const Scanner& s, std::size_t i, bool trailing_run)
{
    const std::size_t end = s.run(i, is_space);
    if (trailing_run && end == s.size()) {
        return end; // \s++$
    }
    // \s*[\r\n]+ (or \s*[\r\n]): up to the last line break of the run.
    for (std::size_t k = end; k > i;) {
        k = s.last_start(k);
        if (is_crlf(s.at(k))) {
            return k + 1;
        }
    }
    if (end == s.size()) {
        return end; // \s+(?!\S) at the end of the text
    }
    // \s+(?!\S): all but the last space, which goes with the next word.
    const std::size_t last = s.last_start(end);
    return last > i ? last : end;
}

} // namespace detail

std::optional<PreTokenizer>
parse_pre_tokenizer(std::string_view name)
{
    for (const auto& [n, kind] : k_names) {
        if (n == name) {
            return kind;
        }
    }
    return std::nullopt;
}

std::string_view
to_string(PreTokenizer kind)
{
    for (const auto& [n, k] : k_names) {
        if (k == kind) {
            return n;
        }
    }
    return "?";
}

namespace detail {

// The Unicode scanner alone: the reference the ASCII fast path is tested on.
void
pre_tokenize_unicode(PreTokenizer kind, std::string_view text,
                     std::vector<std::string_view>& pieces)
{
    const Scanner s(text);
    for (std::size_t i = 0; i < s.size();) {
        const std::size_t e = next_piece(kind, s, i);
        pieces.push_back(text.substr(i, e - i));
        i = e;
    }
}

} // namespace detail

std::size_t
piece_end(PreTokenizer kind, std::string_view text, std::size_t i)
{
    if (static_cast<unsigned char>(text[i]) < 0x80) {
        if (const std::size_t e = detail::ascii_piece_end(kind, text, i);
            e != detail::k_undecided) {
            return e;
        }
    }
    return next_piece(kind, Scanner(text), i);
}

std::size_t
pre_tokenize_part(PreTokenizer kind, std::string_view text, std::size_t from,
                  std::size_t max_pieces, std::vector<std::string_view>& pieces)
{
    if (kind == PreTokenizer::deepseek_v3) {
        detail::deepseek_v3_split(text.substr(from), pieces);
        return text.size();
    }
    const Scanner s(text);
    std::size_t i = from;
    std::size_t budget = max_pieces;
    while (i < s.size() && budget > 0) {
        i = detail::split_ascii(kind, text, i, budget, pieces);
        if (i < s.size() && budget > 0) {
            const std::size_t e = next_piece(kind, s, i);
            pieces.push_back(text.substr(i, e - i));
            --budget;
            i = e;
        }
    }
    return i;
}

void
pre_tokenize(PreTokenizer kind, std::string_view text, std::vector<std::string_view>& pieces)
{
    (void)pre_tokenize_part(kind, text, 0, text.size(), pieces);
}

} // namespace cachewise::tokenize
