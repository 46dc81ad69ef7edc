#pragma once

#include <functional>
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

// How a report prints in each format it has. A format left empty prints
// nothing here: sarif and github print the findings only, from the command,
// and the settings refuse a format a command does not have.
struct FormatPrinters {
    std::function<void()> text{};
    std::function<void()> json{};
    std::function<void()> markdown{};
    std::function<void()> csv{};
    std::function<void()> html{};
};
void print_in(Format format, const FormatPrinters& printers);

} // namespace cachewise::report
