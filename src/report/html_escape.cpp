#include "report/html_escape.hpp"

#include "util/escape.hpp"

namespace cachewise::report {

std::string
html_escape(std::string_view text)
{
    static constexpr ByteEscape k_entities[] = {
        {'&', "&amp;"}, {'<', "&lt;"}, {'>', "&gt;"}, {'"', "&quot;"}, {'\'', "&#39;"}};
    return escape_bytes(text, k_entities, [](std::string& out, char c) {
        if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t') {
            out += "\xEF\xBF\xBD"; // U+FFFD
        } else {
            out += c;
        }
    });
}

std::string
html_excerpt(std::string_view excerpt)
{
    static constexpr std::string_view k_open = "«";
    static constexpr std::string_view k_close = "»";
    const std::size_t open = excerpt.find(k_open);
    if (open == std::string_view::npos) {
        return html_escape(excerpt);
    }
    const std::size_t close = excerpt.find(k_close, open + k_open.size());
    if (close == std::string_view::npos) {
        return html_escape(excerpt);
    }
    const std::size_t changed = open + k_open.size();
    return html_escape(excerpt.substr(0, open)) + "<mark>" +
           html_escape(excerpt.substr(changed, close - changed)) + "</mark>" +
           html_escape(excerpt.substr(close + k_close.size()));
}

std::string
html_id(std::string_view text)
{
    std::string out;
    out.reserve(text.size());
    for (const char c : text) {
        const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                          (c >= '0' && c <= '9') || c == '-' || c == '_';
        out += keep ? c : '-';
    }
    return out;
}

} // namespace cachewise::report
