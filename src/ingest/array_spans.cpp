#include "ingest/array_spans.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace cachewise::ingest {

namespace {

constexpr std::size_t k_cut = std::string_view::npos;

bool
is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

// Just past the string that opens at `p` (a '"'), or k_cut.
std::size_t
string_end(std::string_view text, std::size_t p)
{
    for (++p; p < text.size(); ++p) {
        if (text[p] == '\\') {
            ++p;
        } else if (text[p] == '"') {
            return p + 1;
        }
    }
    return k_cut;
}

// Just past the value that begins at `p`, or k_cut. A scalar ends where a
// separator does; its validity is the element parser's to judge.
std::size_t
value_end(std::string_view text, std::size_t p)
{
    const char first = text[p];
    if (first == '"') {
        return string_end(text, p);
    }
    if (first != '{' && first != '[') {
        while (p < text.size() && !is_space(text[p]) && text[p] != ',' && text[p] != ']' &&
               text[p] != '}') {
            ++p;
        }
        return p;
    }
    std::size_t depth = 0;
    while (p < text.size()) {
        const char c = text[p];
        if (c == '"') {
            p = string_end(text, p);
            if (p == k_cut) {
                return k_cut;
            }
            continue;
        }
        depth += c == '{' || c == '[' ? 1 : 0;
        depth -= (c == '}' || c == ']') && depth > 0 ? 1 : 0;
        ++p;
        if (depth == 0) {
            return p;
        }
    }
    return k_cut;
}

} // namespace

ArraySpans
split_array(std::string_view text, std::size_t from)
{
    ArraySpans out;
    bool need_comma = false;
    for (std::size_t p = from; p < text.size();) {
        if (is_space(text[p])) {
            ++p;
        } else if (text[p] == ']') {
            out.closed = true;
            if (const auto next = text.find_first_not_of(" \t\r\n", p + 1);
                next != std::string_view::npos) {
                out.trailing = next;
            }
            break;
        } else if (need_comma) {
            if (text[p] != ',') {
                out.stray = p;
                break;
            }
            need_comma = false;
            ++p;
        } else if (std::string_view("{[\"-0123456789tfn").find(text[p]) == std::string_view::npos) {
            out.stray = p; // no JSON value starts here
            break;
        } else {
            const std::size_t end = value_end(text, p);
            if (end == k_cut) {
                out.elements.push_back({p, text.size(), true});
                break;
            }
            out.elements.push_back({p, end, false});
            need_comma = true;
            p = end;
        }
    }
    return out;
}

std::optional<std::size_t>
text_after_value(std::string_view text)
{
    const std::size_t start = text.find_first_not_of(" \t\r\n");
    if (start == std::string_view::npos) {
        return std::nullopt;
    }
    const std::size_t end = value_end(text, start);
    if (end == k_cut) {
        return std::nullopt;
    }
    const std::size_t next = text.find_first_not_of(" \t\r\n", end);
    return next == std::string_view::npos ? std::nullopt : std::optional<std::size_t>(next);
}

std::string
trailing_text(std::string_view text, std::size_t at)
{
    const std::string_view before = text.substr(0, at);
    const auto lines = static_cast<std::size_t>(std::count(before.begin(), before.end(), '\n'));
    const std::size_t line_start = lines == 0 ? 0 : before.rfind('\n') + 1;
    std::string where = lines == 0 ? fmt::format("column {}", at + 1)
                                   : fmt::format("line {}, column {} of the document", lines + 1,
                                                 at - line_start + 1);
    const auto next = text.find_first_not_of(" \t\r\n", at);
    const bool another = next != std::string_view::npos && (text[next] == '{' || text[next] == '[');
    return fmt::format("unexpected text after the JSON value at {}{}", where,
                       another ? ": another JSON value starts there (JSON Lines? --input-format "
                                 "auto or exchange reads one record per line)"
                               : "");
}

} // namespace cachewise::ingest
