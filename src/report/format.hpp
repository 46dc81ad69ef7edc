#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cachewise::report {

enum class Format { text, json, markdown, csv, sarif, github, html };

// Every format, in the order --help and the messages list them.
inline constexpr Format k_formats[] = {Format::text,  Format::json,   Format::markdown, Format::csv,
                                       Format::sarif, Format::github, Format::html};

std::optional<Format> parse_format(std::string_view name);
std::vector<std::string> format_names();
std::string_view to_string(Format format);

} // namespace cachewise::report
