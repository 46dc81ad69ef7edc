// DeepSeek V3's pre-tokenizer: a Sequence of three Split steps, each with
// behaviour Isolated (matches and the text between them both become pieces),
// applied one after the other to every piece of the step before:
//   1. \p{N}{1,3}
//   2. [\u4e00-\u9fa5\u3040-\u309f\u30a0-\u30ff]+
//   3. [!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+|
//      [^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+| ?[\p{P}\p{S}]+[\r\n]*|
//      \s*[\r\n]+|\s+(?!\S)|\s+
// Unlike the GPT-4 family's expression, step 3 matches no digit, control
// or format character: those stay as pieces of the text between matches.
#include "tokenize/scanner.hpp"

#include <string_view>
#include <vector>

namespace cachewise::tokenize::detail {

namespace {

bool
is_cjk(const Scanner::Char& c)
{
    return (c.cp >= 0x4E00 && c.cp <= 0x9FA5) || (c.cp >= 0x3040 && c.cp <= 0x309F) ||
           (c.cp >= 0x30A0 && c.cp <= 0x30FF);
}

bool
is_ascii_punct(char32_t c)
{
    return (c >= 0x21 && c <= 0x2F) || (c >= 0x3A && c <= 0x40) || (c >= 0x5B && c <= 0x60) ||
           (c >= 0x7B && c <= 0x7E);
}

bool
is_ascii_letter(const Scanner::Char& c)
{
    return (c.cp >= U'a' && c.cp <= U'z') || (c.cp >= U'A' && c.cp <= U'Z');
}

bool
is_punct_symbol(const Scanner::Char& c)
{
    return (c.cls & (k_punctuation | k_symbol)) != 0;
}

bool
is_letter_mark(const Scanner::Char& c)
{
    return (c.cls & (k_letter | k_mark)) != 0;
}

// Step 3's expression at `i`: the end of the match, or `i` when none starts here.
std::size_t
match_word(const Scanner& s, std::size_t i)
{
    const auto c = s.at(i);
    const std::size_t next = i + c.length;
    if (is_ascii_punct(c.cp) && next < s.size() && is_ascii_letter(s.at(next))) {
        return s.run(next, is_ascii_letter);
    }
    const bool prefix =
        !is_crlf(c) && (c.cls & (k_letter | k_punctuation | k_symbol)) == 0 && next < s.size();
    if (prefix && is_letter_mark(s.at(next))) {
        return s.run(next, is_letter_mark);
    }
    if (is_letter_mark(c)) {
        return s.run(i, is_letter_mark);
    }
    std::size_t p = i;
    if (c.cp == U' ' && next < s.size() && is_punct_symbol(s.at(next))) {
        p = next;
    }
    if (is_punct_symbol(s.at(p))) {
        return s.run(s.run(p, is_punct_symbol), is_crlf);
    }
    if (is_space(c)) {
        return match_whitespace(s, i, false);
    }
    return i;
}

// Splits `text` by a matcher (returns the match end at a position, or the
// position itself), keeping the gaps between matches as pieces.
template <typename Match, typename Emit>
void
split_isolated(std::string_view text, Match match, Emit emit)
{
    const Scanner s(text);
    std::size_t gap = 0;
    std::size_t i = 0;
    while (i < s.size()) {
        const std::size_t e = match(s, i);
        if (e > i) {
            if (gap < i) {
                emit(text.substr(gap, i - gap));
            }
            emit(text.substr(i, e - i));
            i = e;
            gap = e;
        } else {
            i += s.at(i).length;
        }
    }
    if (gap < s.size()) {
        emit(text.substr(gap));
    }
}

std::size_t
match_digits(const Scanner& s, std::size_t i)
{
    std::size_t e = i;
    for (int k = 0; k < 3 && e < s.size() && is_number(s.at(e)); ++k) {
        e += s.at(e).length;
    }
    return e;
}

std::size_t
match_cjk(const Scanner& s, std::size_t i)
{
    return s.run(i, is_cjk);
}

} // namespace

void
deepseek_v3_split(std::string_view text, std::vector<std::string_view>& pieces)
{
    split_isolated(text, match_digits, [&](std::string_view a) {
        split_isolated(a, match_cjk, [&](std::string_view b) {
            split_isolated(b, match_word, [&](std::string_view c) { pieces.push_back(c); });
        });
    });
}

} // namespace cachewise::tokenize::detail
