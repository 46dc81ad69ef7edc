#include "util/file.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <optional>
#include <sys/mman.h>
#include <sys/stat.h>
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

// Everything `fd` holds, to its end; the error names `name` and the reason.
Expected<std::string>
read_all(int fd, std::string_view name)
{
    std::string text;
    char buffer[1 << 16];
    for (;;) {
        const ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0) {
            return unexpected(fmt::format("{}: cannot be read: {}", name, std::strerror(errno)));
        }
        if (n == 0) {
            return text;
        }
        text.append(buffer, static_cast<std::size_t>(n));
    }
}

Expected<std::string>
read_stdin()
{
    auto& kept = kept_stdin();
    if (!kept) {
        auto text = read_all(STDIN_FILENO, "standard input");
        if (!text) {
            return text;
        }
        kept = std::move(*text);
    }
    return *kept;
}

} // namespace

Expected<std::string>
read_file(const std::string& path)
{
    if (path == "-") {
        return read_stdin();
    }
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return unexpected(fmt::format("{}: cannot be read: {}", path, std::strerror(errno)));
    }
    // A folder opens, then fails to read (EISDIR): said in words.
    struct stat st {};
    if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        ::close(fd);
        return unexpected(fmt::format("{}: cannot be read: a folder, not a file", path));
    }
    auto text = read_all(fd, path);
    ::close(fd);
    return text;
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

std::optional<std::filesystem::path>
user_cache_dir()
{
    const auto absolute = [](const char* name) -> std::optional<std::filesystem::path> {
        const char* value = std::getenv(name);
        if (value == nullptr || *value == '\0' || !std::filesystem::path(value).is_absolute()) {
            return std::nullopt;
        }
        return std::filesystem::path(value);
    };
    if (auto xdg = absolute("XDG_CACHE_HOME")) {
        return xdg;
    }
    if (auto home = absolute("HOME")) {
        return *home / ".cache";
    }
    return std::nullopt;
}

} // namespace cachewise
