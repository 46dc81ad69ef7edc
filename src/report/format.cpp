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

} // namespace cachewise::report
