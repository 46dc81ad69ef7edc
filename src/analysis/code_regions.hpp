#pragma once

#include <cstddef>
#include <string_view>
#include <utility>
#include <vector>

namespace cachewise::analysis {

// Byte ranges of a prompt text that hold code: fenced blocks (``` or ~~~),
// inline `code` spans, and lines that read as code (an f-string, a call, a
// statement ending in ';' or '{'). Braces there are syntax, not template
// placeholders: `print(f"item {i}")` is not a `{name}` to fill in.
// Sorted, non-overlapping; linear in the text.
std::vector<std::pair<std::size_t, std::size_t>> code_regions(std::string_view text);

// Whether [begin, end) lies inside one of the sorted regions.
bool inside(const std::vector<std::pair<std::size_t, std::size_t>>& regions, std::size_t begin,
            std::size_t end);

} // namespace cachewise::analysis
