#include "cli/output.hpp"

#include "util/error.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <unistd.h>

namespace cachewise::cli {

namespace {

// Everything buffered on the way to descriptor 1; the error of the first
// failure, 0 when all was written.
int
flush_stdout()
{
    std::cout.flush();
    const bool stream_failed = !std::cout;
    errno = 0;
    if (std::fflush(stdout) != 0 || std::ferror(stdout) != 0 || stream_failed) {
        if (errno != 0) {
            return errno;
        }
        // The write that failed was an earlier one and its errno is gone:
        // the output is broken anyway, so one more byte finds the reason
        // (ENOSPC on a full disk) for the message.
        if (::write(STDOUT_FILENO, "\n", 1) < 0 && errno != 0) {
            return errno;
        }
        return -1;
    }
    return 0;
}

} // namespace

Output::Output(const std::optional<std::string>& file)
{
    if (!file) {
        return;
    }
    if (*file == "-") {
        return; // -o - is standard output
    }
    m_file.emplace(value_or_throw(AtomicFile::create(*file), "-o"));
    flush_stdout();
    m_saved_stdout = ::dup(STDOUT_FILENO);
    if (m_saved_stdout < 0 || ::dup2(m_file->fd(), STDOUT_FILENO) < 0) {
        throw Error(
            fmt::format("-o {}: cannot redirect the output: {}", *file, std::strerror(errno)));
    }
}

Output::~Output()
{
    restore();
}

void
Output::restore() noexcept
{
    if (m_saved_stdout >= 0) {
        std::cout.flush();
        std::fflush(stdout);
        ::dup2(m_saved_stdout, STDOUT_FILENO);
        ::close(m_saved_stdout);
        m_saved_stdout = -1;
    }
}

int
Output::finish(int status)
{
    const int error = flush_stdout();
    restore();
    std::clearerr(stdout);
    std::cout.clear();
    const bool succeeded = status == 0 || status == static_cast<int>(ExitCode::findings);
    if (error != 0) {
        fmt::print(stderr, "cachewise: error: {}: cannot be written: {}\n",
                   m_file ? m_file->path() : std::string("standard output"),
                   error > 0 ? std::strerror(error) : "a write failed");
        m_file.reset(); // the destructor removes the temporary
        return static_cast<int>(ExitCode::usage);
    }
    if (!m_file) {
        return status;
    }
    if (!succeeded) {
        m_file.reset();
        return status;
    }
    if (auto committed = m_file->commit(); !committed) {
        fmt::print(stderr, "cachewise: error: {}\n", committed.error());
        m_file.reset();
        return static_cast<int>(ExitCode::usage);
    }
    m_file.reset();
    return status;
}

} // namespace cachewise::cli
