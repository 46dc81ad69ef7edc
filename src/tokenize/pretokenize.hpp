#pragma once

#include <optional>
#include <string_view>
#include <vector>

namespace cachewise::tokenize {

// The pre-tokenisation regular expressions of the supported families. Each
// needs a look-ahead (\s+(?!\S)) that RE2 cannot express, so each is a
// hand-written scanner that follows the expression's leftmost-first
// alternation and backtracking exactly (see pretokenize.cpp for the
// expressions themselves).
enum class PreTokenizer {
    cl100k,      // tiktoken cl100k_base (current pattern, with \s++$)
    o200k,       // tiktoken o200k_base
    llama3,      // Llama 3 tokenizer.json: cl100k's older pattern
    qwen2,       // Qwen 2/2.5/3 tokenizer.json: llama3's with single digits
    deepseek_v3, // DeepSeek V3 tokenizer.json: digits, CJK, then words
};

[[nodiscard]] std::optional<PreTokenizer> parse_pre_tokenizer(std::string_view name);
[[nodiscard]] std::string_view to_string(PreTokenizer kind);

// Appends the pieces of well-formed UTF-8 `text` to `pieces` (views into
// `text`, in order, covering it exactly).
void pre_tokenize(PreTokenizer kind, std::string_view text, std::vector<std::string_view>& pieces);

// The same, from byte `from` (where a piece starts) for at most
// `max_pieces` pieces; returns where it stopped (text.size() at the end).
// A piece depends on the text from its start on, never on the pieces
// before it, so a text can be split part by part; deepseek_v3, whose
// expressions split in three passes, is split whole at once.
std::size_t pre_tokenize_part(PreTokenizer kind, std::string_view text, std::size_t from,
                              std::size_t max_pieces, std::vector<std::string_view>& pieces);

// The end of the piece that starts at byte `i` of well-formed UTF-8 `text`
// (not for deepseek_v3, which splits in passes).
std::size_t piece_end(PreTokenizer kind, std::string_view text, std::size_t i);

namespace detail {
// pre_tokenize without its ASCII fast path (not for deepseek_v3): the
// reference that the tests hold it to.
void pre_tokenize_unicode(PreTokenizer kind, std::string_view text,
                          std::vector<std::string_view>& pieces);
} // namespace detail

} // namespace cachewise::tokenize
