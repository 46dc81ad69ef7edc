#include "util/line_reader.hpp"

#include "util/file.hpp"

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
            return std::unique_ptr<LineReader>(new LineReader(kept, true, "-", max_line));
        }
        return std::unique_ptr<LineReader>(new LineReader(STDIN_FILENO, false, "-", max_line));
    }
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return unexpected(fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
    }
#ifdef POSIX_FADV_SEQUENTIAL
    ::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
    return std::unique_ptr<LineReader>(new LineReader(fd, true, path, max_line));
}

LineReader::LineReader(int fd, bool owns_fd, std::string path, std::size_t max_line)
    : m_fd(fd), m_owns_fd(owns_fd), m_path(std::move(path)), m_max_line(max_line)
{
    ensure_capacity(4 * k_chunk);
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
    if (m_end > m_begin) {
        std::memcpy(buffer.get(), m_buffer.get() + m_begin, m_end - m_begin);
    }
    m_end -= m_begin;
    m_begin = 0;
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
    if (m_capacity - m_end < k_chunk && m_begin > 0) {
        std::memmove(m_buffer.get(), m_buffer.get() + m_begin, m_end - m_begin);
        m_end -= m_begin;
        m_begin = 0;
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

Expected<bool>
LineReader::next(Line& line)
{
    if (m_replay) {
        m_replay = false;
        line = m_last;
        return true;
    }
    std::size_t scanned = m_begin; // bytes before this were checked for '\n'
    bool skipping = false;         // discarding an over-long line
    std::uint64_t skipped_offset = 0;
    for (;;) {
        const char* start = m_buffer.get() + scanned;
        const void* nl = std::memchr(start, '\n', m_end - scanned);
        if (nl != nullptr || (m_eof && m_end > m_begin)) {
            const std::size_t stop =
                nl != nullptr
                    ? static_cast<std::size_t>(static_cast<const char*>(nl) - m_buffer.get())
                    : m_end;
            line.number = ++m_line_number;
            if (skipping) {
                line.text = {};
                line.offset = skipped_offset;
                line.too_long = true;
            } else {
                std::size_t len = stop - m_begin;
                if (len > 0 && m_buffer[m_begin + len - 1] == '\r') {
                    --len;
                }
                line.text = std::string_view(m_buffer.get() + m_begin, len);
                line.offset = m_consumed;
                line.too_long = false;
            }
            const std::size_t next = nl != nullptr ? stop + 1 : stop;
            m_last = line;
            m_last_begin = m_begin;
            m_last_consumed = m_consumed;
            m_consumed += next - m_begin;
            m_begin = next;
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
        const std::size_t keep = m_end - m_begin;
        auto got = fill();
        if (!got) {
            return unexpected(got.error());
        }
        scanned = m_begin + keep;
        if (*got == 0 && m_end == m_begin) {
            if (skipping) {
                line.number = ++m_line_number;
                line.text = {};
                line.offset = skipped_offset;
                line.too_long = true;
                m_last = line;
                m_last_begin = m_begin;
                m_last_consumed = m_consumed;
                return true;
            }
            return false;
        }
    }
}

Expected<std::string_view>
LineReader::rest()
{
    if (m_replay) {
        m_replay = false;
        if (!m_last.too_long) {
            m_begin = m_last_begin;
            m_consumed = m_last_consumed;
        }
    }
    for (;;) {
        if (m_end - m_begin > m_max_line) {
            return unexpected(fmt::format("{}: document larger than {} bytes", m_path, m_max_line));
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
