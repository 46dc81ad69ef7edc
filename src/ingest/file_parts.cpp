#include "ingest/file_parts.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <optional>
#include <string_view>
#include <unistd.h>

namespace cachewise::ingest {

namespace {

// Closes a descriptor on every path out.
class Fd {
public:
    explicit Fd(int fd) : m_fd(fd) {}
    ~Fd()
    {
        if (m_fd >= 0) {
            ::close(m_fd);
        }
    }
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    [[nodiscard]] int get() const { return m_fd; }

private:
    int m_fd;
};

Expected<int>
open_file(const std::string& path)
{
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return unexpected(fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
    }
    return fd;
}

// Reads `size` bytes at `offset`; fewer only at the end of the file.
Expected<std::size_t>
read_at(int fd, const std::string& path, char* to, std::size_t size, std::uint64_t offset)
{
    std::size_t got = 0;
    while (got < size) {
        const ssize_t n = ::pread(fd, to + got, size - got, static_cast<off_t>(offset + got));
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0) {
            return unexpected(fmt::format("{}: read failed: {}", path, std::strerror(errno)));
        }
        if (n == 0) {
            break;
        }
        got += static_cast<std::size_t>(n);
    }
    return got;
}

// Just past the first line end (LF, CRLF or a lone CR) that starts in the
// first `scan` bytes of `bytes`, found with memchr (log lines run to
// hundreds of KB), or nothing.
std::optional<std::size_t>
first_line_end(std::string_view bytes, std::size_t scan)
{
    const std::string_view head = bytes.substr(0, scan);
    std::size_t end = head.find('\n');
    for (std::size_t cr = head.find('\r'); cr != std::string_view::npos && cr < end;
         cr = head.find('\r', cr + 1)) {
        if (cr + 1 >= bytes.size() || bytes[cr + 1] != '\n') {
            return cr + 1; // a lone CR
        }
        end = std::min(end, cr + 1); // CRLF: the LF just after ends the line
    }
    return end == std::string_view::npos ? std::nullopt : std::optional<std::size_t>(end + 1);
}

// The start of the first line that begins at or after `offset`.
Expected<std::uint64_t>
line_start_at(int fd, const std::string& path, std::uint64_t offset, std::uint64_t size)
{
    if (offset == 0 || offset >= size) {
        return std::min(offset, size);
    }
    constexpr std::size_t k_look = std::size_t{64} << 10;
    std::vector<char> buffer(k_look + 1);
    for (std::uint64_t at = offset - 1; at < size;) {
        auto got = read_at(fd, path, buffer.data(), buffer.size(), at);
        if (!got) {
            return unexpected(got.error());
        }
        if (*got == 0) {
            break;
        }
        // The last byte read is looked at only to tell CRLF from a lone CR.
        const std::size_t scan = at + *got >= size ? *got : *got - 1;
        if (const auto end = first_line_end(std::string_view(buffer.data(), *got), scan)) {
            return at + *end;
        }
        at += scan;
    }
    return size;
}

} // namespace

Expected<std::vector<FilePart>>
split_lines(const std::string& path, std::uint64_t size, std::uint64_t part_size,
            std::uint64_t first_min)
{
    auto opened = open_file(path);
    if (!opened) {
        return unexpected(opened.error());
    }
    const Fd fd(*opened);
    std::vector<FilePart> parts;
    std::uint64_t begin = 0;
    while (begin < size) {
        const std::uint64_t wanted = std::max(begin + part_size, parts.empty() ? first_min : 0);
        auto end = line_start_at(fd.get(), path, std::min(wanted, size), size);
        if (!end) {
            return unexpected(end.error());
        }
        parts.push_back(FilePart{begin, *end});
        begin = *end;
    }
    return parts;
}

std::uint64_t
count_lines(std::string_view text)
{
    // memchr jumps from line end to line end: several times faster than a
    // byte loop on log lines, which are long.
    std::uint64_t n = 0;
    for (std::size_t at = text.find('\n'); at != std::string_view::npos;
         at = text.find('\n', at + 1)) {
        ++n;
    }
    for (std::size_t at = text.find('\r'); at != std::string_view::npos;
         at = text.find('\r', at + 1)) {
        n += at + 1 == text.size() || text[at + 1] != '\n' ? 1 : 0;
    }
    if (!text.empty() && text.back() != '\n' && text.back() != '\r') {
        ++n;
    }
    return n;
}

Expected<std::unique_ptr<char[]>>
read_part(const std::string& path, const FilePart& part, std::size_t padding)
{
    auto opened = open_file(path);
    if (!opened) {
        return unexpected(opened.error());
    }
    const Fd fd(*opened);
    const auto size = static_cast<std::size_t>(part.end - part.begin);
    // Not value-initialised: the bytes are read over at once.
    std::unique_ptr<char[]> buffer(new char[size + padding]);
    auto got = read_at(fd.get(), path, buffer.get(), size, part.begin);
    if (!got) {
        return unexpected(got.error());
    }
    if (*got != size) {
        return unexpected(fmt::format("{}: the file shrank while it was read", path));
    }
    std::memset(buffer.get() + size, ' ', padding);
    return buffer;
}

} // namespace cachewise::ingest
