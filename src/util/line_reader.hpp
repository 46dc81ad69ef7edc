#pragma once

#include "util/expected.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace cachewise {

// Reads a file or a pipe line by line through one growing buffer, so memory is
// bounded by the longest line, never by the file. Every returned line is
// followed by at least k_padding readable bytes, which lets simdjson parse it
// in place without a copy.
class LineReader {
public:
    static constexpr std::size_t k_padding = 64;
    static constexpr std::size_t k_default_max_line = std::size_t{1} << 30; // 1 GiB

    struct Line {
        std::string_view text; // without its end: LF, CRLF or a lone CR
        std::uint64_t number = 0;
        std::uint64_t offset = 0; // byte offset of the line in the file
        bool too_long = false;    // longer than max_line: text is empty, the line was skipped
    };

    // "-" reads standard input.
    static Expected<std::unique_ptr<LineReader>> open(const std::string& path,
                                                      std::size_t max_line = k_default_max_line);
    // Lines of a part of a file already in memory: `size` bytes at `buffer`,
    // followed by k_padding readable bytes, that start at byte `offset` of
    // `path` with line number `first_line`. Lines are cut exactly as when the
    // file is read whole; a byte-order mark is skipped only at offset 0.
    static std::unique_ptr<LineReader> over(std::unique_ptr<char[]> buffer, std::size_t size,
                                            std::string path, std::uint64_t offset,
                                            std::uint64_t first_line,
                                            std::size_t max_line = k_default_max_line);
    ~LineReader();
    LineReader(const LineReader&) = delete;
    LineReader& operator=(const LineReader&) = delete;

    // The buffer a reader made by over() was given, back for the next part;
    // the reader returns no line afterwards.
    std::unique_ptr<char[]> release_buffer();

    // false at end of input; an error for a failed read.
    Expected<bool> next(Line& line);

    // Makes the next call to next() (or rest()) return the last line again.
    void unread() { m_replay = true; }

    // Marks the start of the last line returned; rewind() goes back to it,
    // so that a format can be decided on more than one line. Until then
    // the lines read stay in memory.
    void mark_last_line();
    void rewind();

    // Reads everything that is left into one padded buffer (for single-document
    // files, which are one record). Fails beyond max_line.
    Expected<std::string_view> rest();

    // Bytes read from the file (for a part in memory: the part's size).
    [[nodiscard]] std::uint64_t bytes_read() const { return m_file_offset; }
    // The file offset just past the furthest line returned so far.
    [[nodiscard]] std::uint64_t lines_end() const { return m_lines_end; }
    [[nodiscard]] const std::string& path() const { return m_path; }

private:
    LineReader(int fd, bool owns_fd, std::string path, std::size_t max_line, std::size_t capacity);
    struct LineEnd {
        std::size_t stop; // one past the line's last byte
        std::size_t next; // the next line's first byte
    };
    Expected<std::size_t> fill(); // reads more; returns bytes read (0 at EOF)
    Expected<bool> skip_bom();    // a UTF-8 byte-order mark is not part of line 1
    [[nodiscard]] std::optional<LineEnd> find_end(std::size_t scanned) const;
    void shift(std::size_t by); // the buffer's bytes moved `by` to the front
    void take_line(Line& line, std::size_t stop, std::size_t next, bool too_long,
                   std::uint64_t offset);
    [[nodiscard]] std::size_t keep_from() const
    {
        return m_marked ? std::min(m_mark_begin, m_begin) : m_begin;
    }
    void ensure_capacity(std::size_t needed);

    int m_fd;
    bool m_owns_fd;
    std::string m_path;
    std::size_t m_max_line;
    std::unique_ptr<char[]> m_buffer;
    std::size_t m_capacity = 0;      // usable bytes, excluding the padding
    std::size_t m_begin = 0;         // first unconsumed byte
    std::size_t m_end = 0;           // one past the last valid byte
    std::uint64_t m_file_offset = 0; // bytes read from the file so far
    std::uint64_t m_consumed = 0;    // file offset of m_buffer[m_begin]
    std::uint64_t m_line_number = 0;
    std::uint64_t m_lines_end = 0;
    bool m_eof = false;
    bool m_replay = false;
    Line m_last;
    std::size_t m_last_begin = 0;
    std::uint64_t m_last_consumed = 0;
    bool m_bom_checked = false;
    bool m_marked = false;
    std::size_t m_mark_begin = 0;
    std::uint64_t m_mark_consumed = 0;
    std::uint64_t m_mark_line = 0;
};

} // namespace cachewise
