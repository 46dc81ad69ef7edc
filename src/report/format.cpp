#include "report/format.hpp"

#include "util/enum_names.hpp"

#include <utility>

namespace cachewise::report {

std::optional<Format>
parse_format(std::string_view name)
{
    for (const auto f : k_formats) {
        if (to_string(f) == name) {
            return f;
        }
    }
    return std::nullopt;
}

std::vector<std::string>
format_names()
{
    std::vector<std::string> names;
    for (const auto f : k_formats) {
        names.emplace_back(to_string(f));
    }
    return names;
}

constexpr auto k_format_names =
    util::names_of<Format>({"text", "json", "markdown", "csv", "sarif", "github", "html"});

std::string_view
to_string(Format format)
{
    return k_format_names[format];
}

void
print_in(Format format, const FormatPrinters& printers)
{
    using Printer = std::function<void()> FormatPrinters::*;
    static constexpr std::pair<Format, Printer> k_printers[] = {
        {Format::text, &FormatPrinters::text},
        {Format::json, &FormatPrinters::json},
        {Format::markdown, &FormatPrinters::markdown},
        {Format::csv, &FormatPrinters::csv},
        {Format::html, &FormatPrinters::html}};
    for (const auto& [f, printer] : k_printers) {
        if (f == format && printers.*printer) {
            (printers.*printer)();
        }
    }
}

} // namespace cachewise::report
