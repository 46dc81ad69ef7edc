#include "ingest/file_parts.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <optional>
#include <string_view>
#include <unistd.h>

#if defined(__AVX2__)
#include <immintrin.h>
#elif defined(__SSE2__)
#include <emmintrin.h>
#endif

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

namespace {

// Line feeds in `text`, and whether it holds a carriage return, in one pass
// over the bytes (16 at a time where SSE2 is there): a part is counted
// before it is parsed, and scanning it once for LF and again for CR read
// each part twice.
std::uint64_t
count_feeds(std::string_view text, bool& any_cr)
{
    std::uint64_t n = 0;
    std::size_t i = 0;
    unsigned cr_mask = 0;
#if defined(__AVX2__)
    // 32 bytes a step where the build has AVX2 (half the time of 16: this
    // pass was 5% of the parse workers' samples on exchange JSONL).
    const __m256i lf32 = _mm256_set1_epi8('\n');
    const __m256i cr32 = _mm256_set1_epi8('\r');
    for (; i + 32 <= text.size(); i += 32) {
        const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(text.data() + i));
        n += static_cast<std::uint64_t>(
            std::popcount(static_cast<unsigned>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, lf32)))));
        cr_mask |= static_cast<unsigned>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, cr32)));
    }
#elif defined(__SSE2__)
    const __m128i lf = _mm_set1_epi8('\n');
    const __m128i cr = _mm_set1_epi8('\r');
    for (; i + 16 <= text.size(); i += 16) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(text.data() + i));
        n += static_cast<std::uint64_t>(
            std::popcount(static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, lf)))));
        cr_mask |= static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, cr)));
    }
#endif
    for (; i < text.size(); ++i) {
        n += text[i] == '\n' ? 1 : 0;
        cr_mask |= text[i] == '\r' ? 1U : 0U;
    }
    any_cr = cr_mask != 0;
    return n;
}

} // namespace

std::uint64_t
count_lines(std::string_view text)
{
    bool any_cr = false;
    std::uint64_t n = count_feeds(text, any_cr);
    // A lone CR ends a line too (as LineReader cuts them); JSON lines hold
    // none unescaped, so this second look is rare.
    for (std::size_t at = any_cr ? text.find('\r') : std::string_view::npos;
         at != std::string_view::npos; at = text.find('\r', at + 1)) {
        n += at + 1 == text.size() || text[at + 1] != '\n' ? 1 : 0;
    }
    if (!text.empty() && text.back() != '\n' && text.back() != '\r') {
        ++n;
    }
    return n;
}

Expected<std::size_t>
read_part(const std::string& path, const FilePart& part, std::size_t padding, PartBuffer& buffer)
{
    auto opened = open_file(path);
    if (!opened) {
        return unexpected(opened.error());
    }
    const Fd fd(*opened);
    const auto size = static_cast<std::size_t>(part.end - part.begin);
    if (!buffer.bytes || buffer.capacity < size + padding) {
        buffer.bytes.reset(); // the old one freed before the new one is taken
        // Room to spare: parts differ by up to a line, and a buffer that
        // just fits is outgrown by the next part.
        buffer.capacity = size + padding + size / 2;
        // Not value-initialised: the bytes are read over at once.
        buffer.bytes.reset(new char[buffer.capacity]);
    }
    auto got = read_at(fd.get(), path, buffer.bytes.get(), size, part.begin);
    if (!got) {
        return unexpected(got.error());
    }
    if (*got != size) {
        return unexpected(fmt::format("{}: the file shrank while it was read", path));
    }
    std::memset(buffer.bytes.get() + size, ' ', padding);
    return size;
}

} // namespace cachewise::ingest
