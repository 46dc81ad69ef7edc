#include "util/source_map.hpp"

#include <fmt/format.h>

#include <charconv>
#include <optional>

namespace cachewise {

namespace {

class Scanner {
public:
    Scanner(std::string_view text, std::unordered_map<std::string, SourceMap::Span>& spans)
        : m_text(text), m_spans(spans)
    {}

    bool value(const std::string& path, int depth)
    {
        if (depth > 256) {
            return false;
        }
        space();
        if (m_pos >= m_text.size()) {
            return false;
        }
        const std::size_t begin = m_pos;
        const char c = m_text[m_pos];
        bool ok = true;
        if (c == '{') {
            ok = object(path, depth);
        } else if (c == '[') {
            ok = array(path, depth);
        } else if (c == '"') {
            ok = string();
        } else {
            while (m_pos < m_text.size() && m_text[m_pos] != ',' && m_text[m_pos] != '}' &&
                   m_text[m_pos] != ']' && m_text[m_pos] != ' ' && m_text[m_pos] != '\n' &&
                   m_text[m_pos] != '\r' && m_text[m_pos] != '\t') {
                ++m_pos;
            }
            ok = m_pos > begin;
        }
        if (ok && !path.empty()) {
            m_spans[path] = SourceMap::Span{begin, m_pos};
        }
        return ok;
    }

    bool done()
    {
        space();
        return m_pos == m_text.size();
    }

private:
    void space()
    {
        while (m_pos < m_text.size() && (m_text[m_pos] == ' ' || m_text[m_pos] == '\n' ||
                                         m_text[m_pos] == '\r' || m_text[m_pos] == '\t')) {
            ++m_pos;
        }
    }

    bool string()
    {
        ++m_pos; // opening quote
        while (m_pos < m_text.size() && m_text[m_pos] != '"') {
            m_pos += m_text[m_pos] == '\\' ? 2 : 1;
        }
        if (m_pos >= m_text.size()) {
            return false;
        }
        ++m_pos;
        return true;
    }

    // The raw key text (keys in requests have no escapes worth decoding).
    bool key(std::string& out)
    {
        space();
        if (m_pos >= m_text.size() || m_text[m_pos] != '"') {
            return false;
        }
        const std::size_t begin = m_pos + 1;
        if (!string()) {
            return false;
        }
        out.assign(m_text.substr(begin, m_pos - 1 - begin));
        return skip(':');
    }

    // Past `c` and the blanks before it, where it comes next.
    bool skip(char c)
    {
        space();
        if (m_pos < m_text.size() && m_text[m_pos] == c) {
            ++m_pos;
            return true;
        }
        return false;
    }

    bool object(const std::string& path, int depth)
    {
        ++m_pos; // the opening bracket
        if (skip('}')) {
            return true; // empty
        }
        std::string k;
        for (;;) {
            if (!key(k) || !value(path.empty() ? k : path + "." + k, depth + 1)) {
                return false;
            }
            if (const After next = after_item('}'); next != After::more) {
                return next == After::end;
            }
        }
    }

    bool array(const std::string& path, int depth)
    {
        ++m_pos; // the opening bracket
        if (skip(']')) {
            return true; // empty
        }
        for (std::size_t i = 0;; ++i) {
            if (!value(fmt::format("{}[{}]", path, i), depth + 1)) {
                return false;
            }
            if (const After next = after_item(']'); next != After::more) {
                return next == After::end;
            }
        }
    }

    // After a member or an element: ',' (another follows) or `close` (the
    // end); anything else is not JSON.
    enum class After { more, end, bad };
    After after_item(char close)
    {
        space();
        if (m_pos >= m_text.size() || (m_text[m_pos] != ',' && m_text[m_pos] != close)) {
            return After::bad;
        }
        return m_text[m_pos++] == ',' ? After::more : After::end;
    }

    std::string_view m_text;
    std::unordered_map<std::string, SourceMap::Span>& m_spans;
    std::size_t m_pos = 0;
};

} // namespace

std::optional<SourceMap>
SourceMap::build(std::string_view text, std::string_view root_path)
{
    SourceMap map;
    map.m_text = text;
    Scanner scanner(text, map.m_spans);
    if (!scanner.value(std::string(root_path), 0) || !scanner.done()) {
        return std::nullopt;
    }
    return map;
}

const SourceMap::Span*
SourceMap::find(const std::string& path) const
{
    const auto it = m_spans.find(path);
    return it == m_spans.end() ? nullptr : &it->second;
}

std::string
SourceMap::path_at(std::size_t offset) const
{
    const std::string* best = nullptr;
    std::size_t best_size = 0;
    for (const auto& [path, span] : m_spans) {
        const std::size_t size = span.end - span.begin;
        if (span.begin <= offset && offset < span.end && (best == nullptr || size < best_size)) {
            best = &path;
            best_size = size;
        }
    }
    return best != nullptr ? *best : std::string();
}

namespace {

// The code unit of the \\uXXXX escape at `pos`, if there is one.
std::optional<unsigned>
escape_unit(std::string_view text, std::size_t pos)
{
    if (pos + 6 > text.size() || text[pos] != '\\' || text[pos + 1] != 'u') {
        return std::nullopt;
    }
    unsigned unit = 0;
    const char* end = text.data() + pos + 6;
    const auto [at, ec] = std::from_chars(text.data() + pos + 2, end, unit, 16);
    return ec == std::errc() && at == end ? std::optional<unsigned>(unit) : std::nullopt;
}

// Whether the escape at `pos` is a surrogate pair ("\\ud83c\\udf89"): one
// character beyond the BMP, written as two escapes.
bool
is_surrogate_pair(std::string_view text, std::size_t pos)
{
    const auto high = escape_unit(text, pos);
    const auto low = escape_unit(text, pos + 6);
    return high && low && *high >= 0xD800 && *high <= 0xDBFF && *low >= 0xDC00 && *low <= 0xDFFF;
}

} // namespace

std::optional<std::size_t>
SourceMap::string_offset(const std::string& path, std::size_t char_offset) const
{
    const Span* span = find(path);
    if (span == nullptr || m_text[span->begin] != '"') {
        return std::nullopt;
    }
    // Walk the escaped text, counting the characters it decodes to; from
    // where the last question on this string stopped when it lies before,
    // so that findings in order cost one walk in all.
    std::size_t pos = span->begin + 1;
    std::size_t chars = 0;
    if (m_string_cursor.span == span->begin && m_string_cursor.chars <= char_offset) {
        pos = m_string_cursor.pos;
        chars = m_string_cursor.chars;
    }
    while (pos < span->end - 1 && chars < char_offset) {
        pos = next_char(pos, span->end - 1);
        ++chars;
    }
    m_string_cursor = StringCursor{span->begin, chars, pos};
    return pos;
}

std::size_t
SourceMap::next_char(std::size_t pos, std::size_t end) const
{
    if (m_text[pos] == '\\') {
        const bool unicode = pos + 1 < m_text.size() && m_text[pos + 1] == 'u';
        // A surrogate pair decodes to one character.
        return pos + (!unicode ? 2 : is_surrogate_pair(m_text, pos) ? 12 : 6);
    }
    // One UTF-8 character: its lead byte and continuation bytes.
    ++pos;
    while (pos < end && (static_cast<unsigned char>(m_text[pos]) & 0xC0) == 0x80) {
        ++pos;
    }
    return pos;
}

std::optional<std::size_t>
SourceMap::string_chars_before(const std::string& path, std::size_t byte_offset) const
{
    const Span* span = find(path);
    if (span == nullptr || m_text[span->begin] != '"' || byte_offset <= span->begin ||
        byte_offset >= span->end) {
        return std::nullopt;
    }
    std::size_t chars = 0;
    for (std::size_t pos = span->begin + 1; pos < byte_offset;
         pos = next_char(pos, span->end - 1)) {
        ++chars;
    }
    return chars;
}

SourceMap::LineColumn
SourceMap::line_column(std::size_t byte_offset) const
{
    LineColumn lc;
    std::size_t i = 0;
    if (m_line_cursor.byte <= byte_offset) { // continue the last walk
        i = m_line_cursor.byte;
        lc = m_line_cursor.lc;
    }
    for (; i < byte_offset && i < m_text.size(); ++i) {
        if (m_text[i] == '\n') {
            ++lc.line;
            lc.column = 1;
        } else if ((static_cast<unsigned char>(m_text[i]) & 0xC0) != 0x80) {
            ++lc.column;
        }
    }
    m_line_cursor = LineCursor{i, lc};
    return lc;
}

} // namespace cachewise
