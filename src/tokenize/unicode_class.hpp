#pragma once

#include <cstddef>
#include <cstdint>

namespace cachewise::tokenize {

// The Unicode classes that the pre-tokenizers' regular expressions test:
// general categories (\p{L}, \p{Lu}, ..., \p{M}, \p{N}, \p{P}, \p{S}) and the
// White_Space property (\s of the Rust regex engines that tiktoken and
// Hugging Face tokenizers run). A code point may carry several bits
// (every Lu is also L).
enum CharClass : std::uint16_t {
    k_letter = 1U << 0,
    k_upper = 1U << 1,
    k_lower = 1U << 2,
    k_title = 1U << 3,
    k_modifier = 1U << 4,
    k_other_letter = 1U << 5,
    k_mark = 1U << 6,
    k_number = 1U << 7,
    k_punctuation = 1U << 8,
    k_symbol = 1U << 9,
    k_space = 1U << 10,
};

// The class mask of a code point; 0 for unassigned, control (other than
// White_Space), format and private-use code points and for values past
// U+10FFFF.
[[nodiscard]] std::uint16_t char_class(char32_t cp);

// The Unicode version of the tables (that of the node release that wrote them).
[[nodiscard]] const char* unicode_version();

namespace detail {

struct UnicodeRun {
    std::uint32_t start; // first code point of a run of equal masks
    std::uint16_t mask;
};
extern const UnicodeRun k_unicode_runs[];
extern const std::size_t k_unicode_run_count;
extern const char k_unicode_version[];

} // namespace detail

} // namespace cachewise::tokenize
