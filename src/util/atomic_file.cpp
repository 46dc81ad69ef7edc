#include "util/atomic_file.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace cachewise {

namespace {

std::string
folder_of(const std::string& path)
{
    const auto slash = path.rfind('/');
    if (slash == std::string::npos) {
        return ".";
    }
    return slash == 0 ? "/" : path.substr(0, slash);
}

// What a new file gets: the target's mode when it exists, else 0666 less the
// umask (mkstemp creates 0600, which would surprise a reader of the output).
mode_t
mode_for(const std::string& path)
{
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0) {
        return st.st_mode & 07777;
    }
    const mode_t mask = ::umask(0);
    ::umask(mask);
    return 0666 & ~mask;
}

} // namespace

Expected<AtomicFile>
AtomicFile::create(const std::string& path)
{
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
        return unexpected(fmt::format("{}: is a directory", path));
    }
    if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
        // A device or a pipe (/dev/null, /dev/stdout): nothing to replace.
        const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
        if (fd < 0) {
            return unexpected(fmt::format("{}: cannot be written: {}", path, std::strerror(errno)));
        }
        return AtomicFile(path, "", fd);
    }
    const std::string folder = folder_of(path);
    std::string temp = folder + "/.cachewise-XXXXXX";
    const int fd = ::mkstemp(temp.data());
    if (fd < 0) {
        return unexpected(
            fmt::format("{}: cannot write in {}: {}", path, folder, std::strerror(errno)));
    }
    if (::fchmod(fd, mode_for(path)) != 0) {
        const int saved = errno;
        ::close(fd);
        ::unlink(temp.c_str());
        return unexpected(fmt::format("{}: cannot be written: {}", path, std::strerror(saved)));
    }
    return AtomicFile(path, std::move(temp), fd);
}

AtomicFile::AtomicFile(AtomicFile&& other) noexcept
    : m_path(std::move(other.m_path)), m_temp(std::move(other.m_temp)), m_fd(other.m_fd)
{
    other.m_fd = -1;
    other.m_temp.clear();
}

AtomicFile::~AtomicFile()
{
    discard();
}

void
AtomicFile::discard() noexcept
{
    if (m_fd >= 0) {
        ::close(m_fd);
        m_fd = -1;
    }
    if (!m_temp.empty()) {
        ::unlink(m_temp.c_str());
        m_temp.clear();
    }
}

Expected<bool>
AtomicFile::write(std::string_view bytes)
{
    while (!bytes.empty()) {
        const ssize_t n = ::write(m_fd, bytes.data(), bytes.size());
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return unexpected(fmt::format("{}: cannot be written: {}", m_path,
                                          std::strerror(n < 0 ? errno : EIO)));
        }
        bytes.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
}

Expected<bool>
AtomicFile::commit()
{
    if (m_fd < 0) {
        return unexpected(fmt::format("{}: already written", m_path));
    }
    // fsync reports the write errors a full disk defers; close can too. A
    // device (no temporary) cannot be synced, only closed.
    const bool synced = m_temp.empty() || ::fsync(m_fd) == 0;
    int saved = errno;
    const bool closed = ::close(m_fd) == 0;
    m_fd = -1;
    if (!synced || !closed) {
        saved = synced ? errno : saved;
        discard();
        return unexpected(fmt::format("{}: cannot be written: {}", m_path, std::strerror(saved)));
    }
    if (m_temp.empty()) {
        return true;
    }
    if (::rename(m_temp.c_str(), m_path.c_str()) != 0) {
        saved = errno;
        discard();
        return unexpected(fmt::format("{}: cannot be replaced: {}", m_path, std::strerror(saved)));
    }
    m_temp.clear();
    return true;
}

Expected<bool>
write_file_atomically(const std::string& path, std::string_view bytes)
{
    auto file = AtomicFile::create(path);
    if (!file) {
        return unexpected(file.error());
    }
    if (auto written = file->write(bytes); !written) {
        return written;
    }
    return file->commit();
}

} // namespace cachewise
