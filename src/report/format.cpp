#include "report/format.hpp"

namespace cachewise::report {

std::optional<Format>
parse_format(std::string_view name)
{
    for (auto f : {Format::text, Format::json, Format::markdown, Format::csv, Format::sarif,
                   Format::github, Format::html}) {
        if (to_string(f) == name) {
            return f;
        }
    }
    return std::nullopt;
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
