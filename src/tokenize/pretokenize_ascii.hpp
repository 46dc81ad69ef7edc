#pragma once

#include "tokenize/pretokenize.hpp"

#include <cstddef>
#include <string_view>
#include <vector>

namespace cachewise::tokenize::detail {

// What the functions below return for a piece that depends on a byte from
// 0x80 on: the Unicode scanner settles those.
inline constexpr std::size_t k_undecided = std::string_view::npos;

// The end of the piece that starts at `i` (an ASCII byte) of well-formed
// UTF-8 `text`, by the o200k expression, or k_undecided.
std::size_t next_o200k_ascii(std::string_view text, std::size_t i);

// The same for cl100k (3 digits, trailing run), llama3 (3, none) and qwen2
// (1, none).
std::size_t next_gpt4_ascii(std::string_view text, std::size_t i, std::size_t max_digits,
                            bool trailing_run);

// The end of the piece at `i` (an ASCII byte) by `kind` (not deepseek_v3),
// or k_undecided.
std::size_t ascii_piece_end(PreTokenizer kind, std::string_view text, std::size_t i);

// Appends pieces from `i` (o200k and the GPT-4 family) while the ASCII
// path decides them, at most `budget` of them (counted down); returns where
// it stopped: the end, a byte from 0x80 on, or a piece it leaves undecided.
std::size_t split_ascii(PreTokenizer kind, std::string_view text, std::size_t i,
                        std::size_t& budget, std::vector<std::string_view>& pieces);

} // namespace cachewise::tokenize::detail
