#pragma once

#include <optional>
#include <string_view>

namespace cachewise::report {

enum class Format { text, json, markdown, csv, sarif, github, html };

std::optional<Format> parse_format(std::string_view name);
std::string_view to_string(Format format);

} // namespace cachewise::report
