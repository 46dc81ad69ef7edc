#pragma once

#include "util/expected.hpp"

#include <string>
#include <string_view>

namespace cachewise {

// A file written whole or not at all: the bytes go to a temporary file in the
// target's folder (so the rename cannot cross file systems), which commit()
// flushes, checks, syncs and renames over the target. Until then, and when
// anything fails, the target keeps its old content; the destructor removes
// an uncommitted temporary. A rewritten file keeps the target's permissions.
class AtomicFile {
public:
    static Expected<AtomicFile> create(const std::string& path);
    AtomicFile(AtomicFile&& other) noexcept;
    AtomicFile& operator=(AtomicFile&&) = delete;
    AtomicFile(const AtomicFile&) = delete;
    AtomicFile& operator=(const AtomicFile&) = delete;
    ~AtomicFile();

    // The temporary's descriptor, for output redirected into it.
    [[nodiscard]] int fd() const { return m_fd; }
    [[nodiscard]] const std::string& path() const { return m_path; }

    Expected<bool> write(std::string_view bytes);
    // Syncs, closes and renames over the target; the error names the target.
    Expected<bool> commit();

private:
    AtomicFile(std::string path, std::string temp, int fd)
        : m_path(std::move(path)), m_temp(std::move(temp)), m_fd(fd)
    {}
    void discard() noexcept;

    std::string m_path;
    std::string m_temp;
    int m_fd = -1;
};

// Writes `bytes` to `path` through an AtomicFile.
Expected<bool> write_file_atomically(const std::string& path, std::string_view bytes);

} // namespace cachewise
