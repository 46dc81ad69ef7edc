#include "report/format.hpp"

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

std::string_view
to_string(Format format)
{
    switch (format) {
    case Format::text:
        return "text";
    case Format::json:
        return "json";
    case Format::markdown:
        return "markdown";
    case Format::csv:
        return "csv";
    case Format::sarif:
        return "sarif";
    case Format::github:
        return "github";
    case Format::html:
        return "html";
    }
    return "?";
}

void
print_in(Format format, const FormatPrinters& printers)
{
    const std::function<void()>* chosen = nullptr;
    switch (format) {
    case Format::text:
        chosen = &printers.text;
        break;
    case Format::json:
        chosen = &printers.json;
        break;
    case Format::markdown:
        chosen = &printers.markdown;
        break;
    case Format::csv:
        chosen = &printers.csv;
        break;
    case Format::html:
        chosen = &printers.html;
        break;
    case Format::sarif:
    case Format::github:
        break;
    }
    if (chosen != nullptr && *chosen) {
        (*chosen)();
    }
}

} // namespace cachewise::report
