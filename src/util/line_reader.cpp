#include "util/line_reader.hpp"

#include "util/file.hpp"
#include "util/format.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace cachewise {

namespace {

constexpr std::size_t k_chunk = std::size_t{1} << 20; // 1 MiB per read()

} // namespace

Expected<std::unique_ptr<LineReader>>
LineReader::open(const std::string& path, std::size_t max_line)
{
    if (path == "-") {
        // Standard input a command already kept (read_file) is read again from memory.
        if (const int kept = kept_stdin_fd(); kept >= 0) {
            return std::unique_ptr<LineReader>(
                new LineReader(kept, true, "-", max_line, 4 * k_chunk));
        }
        return std::unique_ptr<LineReader>(
            new LineReader(STDIN_FILENO, false, "-", max_line, 4 * k_chunk));
    }
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return unexpected(fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
    }
#ifdef POSIX_FADV_SEQUENTIAL
    ::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
    return std::unique_ptr<LineReader>(new LineReader(fd, true, path, max_line, 4 * k_chunk));
}

std::unique_ptr<LineReader>
LineReader::over(std::unique_ptr<char[]> buffer, std::size_t size, std::string path,
                 std::uint64_t offset, std::uint64_t first_line, std::size_t max_line)
{
    std::unique_ptr<LineReader> reader(new LineReader(-1, false, std::move(path), max_line, 0));
    reader->m_buffer = std::move(buffer);
    reader->m_capacity = size;
    reader->m_end = size;
    reader->m_eof = true;
    reader->m_file_offset = size;
    reader->m_consumed = offset;
    reader->m_line_number = first_line > 0 ? first_line - 1 : 0;
    return reader;
}

std::unique_ptr<char[]>
LineReader::release_buffer()
{
    m_begin = m_end = m_capacity = 0;
    m_replay = false;
    m_marked = false;
    return std::move(m_buffer);
}

LineReader::LineReader(int fd, bool owns_fd, std::string path, std::size_t max_line,
                       std::size_t capacity)
    : m_fd(fd), m_owns_fd(owns_fd), m_path(std::move(path)), m_max_line(max_line)
{
    ensure_capacity(capacity);
}

LineReader::~LineReader()
{
    if (m_owns_fd) {
        ::close(m_fd);
    }
}

void
LineReader::ensure_capacity(std::size_t needed)
{
    if (needed <= m_capacity) {
        return;
    }
    std::size_t capacity = std::max(needed, m_capacity * 2);
    // Not value-initialised: zero-filling 4 MiB per file showed in profiles.
    std::unique_ptr<char[]> buffer(new char[capacity + k_padding]);
    const std::size_t keep = keep_from();
    if (m_end > keep) {
        std::memcpy(buffer.get(), m_buffer.get() + keep, m_end - keep);
    }
    shift(keep);
    m_buffer = std::move(buffer);
    m_capacity = capacity;
    std::memset(m_buffer.get() + m_capacity, ' ', k_padding);
}

Expected<std::size_t>
LineReader::fill()
{
    if (m_eof) {
        return std::size_t{0};
    }
    // Slide the unconsumed tail to the front before growing: memory stays
    // proportional to the longest line.
    if (const std::size_t keep = keep_from(); m_capacity - m_end < k_chunk && keep > 0) {
        std::memmove(m_buffer.get(), m_buffer.get() + keep, m_end - keep);
        shift(keep);
    }
    if (m_capacity - m_end < k_chunk) {
        ensure_capacity(m_end + k_chunk);
    }
    for (;;) {
        const ssize_t n = ::read(m_fd, m_buffer.get() + m_end, m_capacity - m_end);
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            return unexpected(fmt::format("{}: read failed: {}", m_path, std::strerror(errno)));
        }
        if (n == 0) {
            m_eof = true;
        }
        m_end += static_cast<std::size_t>(n);
        m_file_offset += static_cast<std::uint64_t>(n);
        return static_cast<std::size_t>(n);
    }
}

void
LineReader::shift(std::size_t by)
{
    m_end -= by;
    m_begin -= by;
    m_mark_begin = m_mark_begin >= by ? m_mark_begin - by : 0;
    m_last_begin = m_last_begin >= by ? m_last_begin - by : 0;
}

void
LineReader::mark_last_line()
{
    m_marked = true;
    m_mark_begin = m_last_begin;
    m_mark_consumed = m_last_consumed;
    m_mark_line = m_last.number > 0 ? m_last.number - 1 : 0;
}

void
LineReader::rewind()
{
    if (!m_marked) {
        return;
    }
    m_marked = false;
    m_replay = false;
    m_begin = m_mark_begin;
    m_consumed = m_mark_consumed;
    m_line_number = m_mark_line;
}

Expected<bool>
LineReader::skip_bom()
{
    m_bom_checked = true;
    while (m_end - m_begin < 3 && !m_eof) {
        auto got = fill();
        if (!got) {
            return unexpected(got.error());
        }
    }
    if (m_consumed == 0 && m_end - m_begin >= 3 &&
        std::memcmp(m_buffer.get() + m_begin, "\xEF\xBB\xBF", 3) == 0) {
        m_begin += 3;
        m_consumed += 3;
    }
    return true;
}

// The end of the line that starts at m_begin, looking for terminators from
// `scanned` on: CR, LF or CRLF. nullopt: more bytes are needed to know.
std::optional<LineReader::LineEnd>
LineReader::find_end(std::size_t scanned) const
{
    const char* base = m_buffer.get();
    const auto* nl = static_cast<const char*>(std::memchr(base + scanned, '\n', m_end - scanned));
    const std::size_t limit = nl != nullptr ? static_cast<std::size_t>(nl - base) : m_end;
    const auto* cr = static_cast<const char*>(std::memchr(base + scanned, '\r', limit - scanned));
    if (cr != nullptr) {
        const auto at = static_cast<std::size_t>(cr - base);
        if (at + 1 < m_end) {
            return LineEnd{at, base[at + 1] == '\n' ? at + 2 : at + 1};
        }
        if (m_eof) {
            return LineEnd{at, at + 1};
        }
        return std::nullopt; // a CR last in the buffer: CRLF or CR, the next read says
    }
    if (nl != nullptr) {
        return LineEnd{limit, limit + 1};
    }
    if (m_eof && m_end > m_begin) {
        return LineEnd{m_end, m_end}; // a last line without a newline is a line
    }
    return std::nullopt;
}

// Returns the line from m_begin to `stop` (its text empty when too long)
// and moves on to `next`.
void
LineReader::take_line(Line& line, std::size_t stop, std::size_t next, bool too_long,
                      std::uint64_t offset)
{
    line.number = ++m_line_number;
    line.text =
        too_long ? std::string_view() : std::string_view(m_buffer.get() + m_begin, stop - m_begin);
    line.offset = offset;
    line.too_long = too_long;
    m_last = line;
    m_last_begin = m_begin;
    m_last_consumed = m_consumed;
    m_consumed += next - m_begin;
    m_begin = next;
    m_lines_end = std::max(m_lines_end, m_consumed);
}

Expected<bool>
LineReader::next(Line& line)
{
    if (m_replay) {
        m_replay = false;
        line = m_last;
        return true;
    }
    if (!m_bom_checked) {
        if (auto ok = skip_bom(); !ok) {
            return unexpected(ok.error());
        }
    }
    std::size_t scanned = m_begin; // bytes before this hold no line end
    bool skipping = false;         // discarding an over-long line
    std::uint64_t skipped_offset = 0;
    for (;;) {
        if (const auto found = find_end(scanned)) {
            // Exactly the lines longer than max_line, however the reads fell.
            const bool too_long = skipping || found->stop - m_begin > m_max_line;
            take_line(line, found->stop, found->next, too_long,
                      skipping ? skipped_offset : m_consumed);
            return true;
        }
        if (m_eof) {
            return false;
        }
        if (!skipping && m_end - m_begin > m_max_line) {
            // Drop what we hold and keep reading until the end of this line.
            skipping = true;
            skipped_offset = m_consumed;
            m_consumed += m_end - m_begin;
            m_begin = m_end;
        } else if (skipping) {
            m_consumed += m_end - m_begin;
            m_begin = m_end;
        }
        // Everything held was scanned, but a CR last in the buffer is
        // looked at again once the next byte is known.
        std::size_t keep = m_end - m_begin;
        if (keep > 0 && m_buffer[m_end - 1] == '\r') {
            --keep;
        }
        auto got = fill();
        if (!got) {
            return unexpected(got.error());
        }
        scanned = m_begin + keep;
        if (*got == 0 && m_end == m_begin) {
            if (skipping) {
                take_line(line, m_begin, m_begin, true, skipped_offset);
                return true;
            }
            return false;
        }
    }
}

Expected<std::string_view>
LineReader::rest()
{
    if (!m_bom_checked) {
        if (auto ok = skip_bom(); !ok) {
            return unexpected(ok.error());
        }
    }
    if (m_replay) {
        m_replay = false;
        if (!m_last.too_long) {
            m_begin = m_last_begin;
            m_consumed = m_last_consumed;
        }
    }
    for (;;) {
        if (m_end - m_begin > m_max_line) {
            return unexpected(
                fmt::format("{}: document larger than {} bytes", m_path, group_count(m_max_line)));
        }
        auto got = fill();
        if (!got) {
            return unexpected(got.error());
        }
        if (*got == 0) {
            break;
        }
    }
    std::string_view all(m_buffer.get() + m_begin, m_end - m_begin);
    m_consumed += all.size();
    m_begin = m_end;
    return all;
}

} // namespace cachewise
