#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

namespace cachewise {

// Where each value of a JSON document sits in its text, by path
// ("system[0].text", "messages[2].content[1]"), so findings can point at a
// template's line and column and rewrites can touch exact bytes. A tiny
// scanner of its own: the documents are templates and single requests, and
// the parse that matters (simdjson's) has already validated them.
class SourceMap {
public:
    struct Span {
        std::size_t begin = 0; // first byte of the value ('{', '[', '"', digit...)
        std::size_t end = 0;   // one past its last byte
    };

    // Scans `text` (which must outlive the map). Returns nothing for text
    // that is not one JSON value.
    static std::optional<SourceMap> build(std::string_view text, std::string_view root_path = "");

    [[nodiscard]] const Span* find(const std::string& path) const;

    // The path of the innermost value that holds byte `offset` ("" for the
    // root, or when no value holds it).
    [[nodiscard]] std::string path_at(std::size_t offset) const;

    // Byte offset in the document of the character at `char_offset` of the
    // unescaped string value at `path`.
    [[nodiscard]] std::optional<std::size_t> string_offset(const std::string& path,
                                                           std::size_t char_offset) const;

    // The inverse: how many characters the string value at `path` decodes
    // to before byte `byte_offset` of the document (inside the string).
    [[nodiscard]] std::optional<std::size_t> string_chars_before(const std::string& path,
                                                                 std::size_t byte_offset) const;

    struct LineColumn {
        std::size_t line = 1;   // 1-based
        std::size_t column = 1; // 1-based, in characters
    };
    [[nodiscard]] LineColumn line_column(std::size_t byte_offset) const;

    [[nodiscard]] std::string_view text() const { return m_text; }

private:
    // The byte after the character (or escape) of a string at `pos`.
    [[nodiscard]] std::size_t next_char(std::size_t pos, std::size_t end) const;

    std::string_view m_text;
    std::unordered_map<std::string, Span> m_spans;
    // Where the last walks stopped (questions come in document order).
    struct StringCursor {
        std::size_t span = SIZE_MAX; // the string's first byte
        std::size_t chars = 0;
        std::size_t pos = 0;
    };
    struct LineCursor {
        std::size_t byte = 0;
        LineColumn lc;
    };
    mutable StringCursor m_string_cursor;
    mutable LineCursor m_line_cursor;
};

} // namespace cachewise
