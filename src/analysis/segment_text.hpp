#pragma once

#include "model/segment.hpp"

#include <string>
#include <string_view>

namespace cachewise::analysis {

// True when two rendered segments are equal as JSON values: keys sorted at
// every level and numbers compared by value (1.0 == 1). Distinguishes
// serialisation drift from a real change.
bool canonical_equal(std::string_view a, std::string_view b);

// The "name" member of a rendered tool definition, or "" when it has none.
std::string tool_name(std::string_view rendered);

// Number of UTF-8 characters in the first `bytes` bytes of `text`.
std::size_t utf8_length(std::string_view text, std::size_t bytes);

// Moves `pos` back to the start of the UTF-8 character it falls in.
std::size_t utf8_floor(std::string_view text, std::size_t pos);

// Shows control characters as escapes (\n, \t, \u0001) for one-line excerpts.
std::string printable(std::string_view text);

} // namespace cachewise::analysis
