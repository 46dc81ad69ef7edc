#include "util/file.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
#include <sys/mman.h>
#include <unistd.h>

namespace cachewise {

namespace {

// Standard input can be read only once per process: the first read_file("-")
// keeps it here.
std::optional<std::string>&
kept_stdin()
{
    static std::optional<std::string> kept;
    return kept;
}

Expected<std::string>
read_stdin()
{
    auto& kept = kept_stdin();
    if (kept) {
        return *kept;
    }
    std::string text;
    char buffer[1 << 16];
    for (;;) {
        const ssize_t n = ::read(STDIN_FILENO, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0) {
            return unexpected(
                fmt::format("standard input: cannot be read: {}", std::strerror(errno)));
        }
        if (n == 0) {
            break;
        }
        text.append(buffer, static_cast<std::size_t>(n));
    }
    kept = text;
    return text;
}

} // namespace

Expected<std::string>
read_file(const std::string& path)
{
    if (path == "-") {
        return read_stdin();
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        return unexpected(fmt::format("{}: cannot be read", path));
    }
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

int
kept_stdin_fd()
{
    const auto& kept = kept_stdin();
    if (!kept) {
        return -1;
    }
    const int fd = ::memfd_create("cachewise-stdin", MFD_CLOEXEC);
    if (fd < 0) {
        return -1;
    }
    std::string_view rest(*kept);
    while (!rest.empty()) {
        const ssize_t n = ::write(fd, rest.data(), rest.size());
        if (n <= 0) {
            ::close(fd);
            return -1;
        }
        rest.remove_prefix(static_cast<std::size_t>(n));
    }
    ::lseek(fd, 0, SEEK_SET);
    return fd;
}

} // namespace cachewise
