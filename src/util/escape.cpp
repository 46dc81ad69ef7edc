#include "util/escape.hpp"

#include "util/redact.hpp"

#include <fmt/format.h>

namespace cachewise {

namespace {

// The length of an escapable sequence at text[i] (0: none) and its code point.
std::size_t
escapable(std::string_view text, std::size_t i, unsigned& code)
{
    const auto b = static_cast<unsigned char>(text[i]);
    if (b < 0x20 || b == 0x7f) {
        code = b;
        return 1;
    }
    if (b == 0xc2 && i + 1 < text.size()) {
        const auto c = static_cast<unsigned char>(text[i + 1]);
        if (c >= 0x80 && c <= 0x9f) { // C1 controls, such as the one-byte CSI
            code = c;
            return 2;
        }
    }
    if (b == 0xe2 && i + 2 < text.size()) {
        const auto c = static_cast<unsigned char>(text[i + 1]);
        const auto d = static_cast<unsigned char>(text[i + 2]);
        // U+202A-U+202E and U+2066-U+2069: text that reads other than it prints.
        if ((c == 0x80 && d >= 0xaa && d <= 0xae) || (c == 0x81 && d >= 0xa6 && d <= 0xa9)) {
            code = 0x2000u + ((c & 0x3fu) << 6u) + (d & 0x3fu);
            return 3;
        }
    }
    return 0;
}

} // namespace

std::string
escape_control(std::string_view text)
{
    std::string out;
    out.reserve(text.size());
    // Printed first on a line (a table's first column), "::" would still be a
    // workflow command: the runner trims leading blanks.
    const std::size_t lead = std::min(text.find_first_not_of(" \t"), text.size());
    const std::size_t colon = text.substr(lead, 2) == "::" ? lead : std::string_view::npos;
    for (std::size_t i = 0; i < text.size();) {
        if (i == colon) {
            out += "\\u003a";
            ++i;
            continue;
        }
        unsigned code = 0;
        const std::size_t n = escapable(text, i, code);
        if (n == 0) {
            out.push_back(text[i]);
            ++i;
            continue;
        }
        switch (code) {
        case '\n':
            out += "\\n";
            break;
        case '\r':
            out += "\\r";
            break;
        case '\t':
            out += "\\t";
            break;
        default:
            out += fmt::format("\\u{:04x}", code);
        }
        i += n;
    }
    return out;
}

std::string
safe_text(std::string_view text)
{
    return escape_control(redact(text));
}

std::string
markdown_cell(std::string_view text)
{
    static constexpr ByteEscape k_cell[] = {{'|', "\\|"}};
    return escape_bytes(text, k_cell, [](std::string& out, char c) { out.push_back(c); });
}

std::string
safe_lines(std::string_view text)
{
    std::string out;
    out.reserve(text.size());
    while (!text.empty()) {
        const std::size_t nl = text.find('\n');
        const std::size_t len = nl == std::string_view::npos ? text.size() : nl;
        out += safe_text(text.substr(0, len));
        if (nl != std::string_view::npos) {
            out.push_back('\n');
        }
        text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    }
    return out;
}

std::string
uri_path(std::string_view path)
{
    static constexpr std::string_view k_kept = "-._~/!$&'()*+,;=@";
    std::string out;
    out.reserve(path.size());
    for (const char c : path) {
        const auto b = static_cast<unsigned char>(c);
        const bool alnum =
            (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || (b >= '0' && b <= '9');
        if (alnum || k_kept.find(c) != std::string_view::npos) {
            out += c;
        } else {
            out += fmt::format("%{:02X}", b);
        }
    }
    return out;
}

} // namespace cachewise
