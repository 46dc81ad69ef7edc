#include "tokenize/mapped_file.hpp"

#include "util/file.hpp"

#include <algorithm>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>

namespace cachewise::tokenize {

Expected<MappedFile>
MappedFile::open(const std::string& path)
{
    MappedFile file;
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    struct stat st {};
    if (fd >= 0 && ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
        const auto size = static_cast<std::size_t>(st.st_size);
        // MAP_POPULATE: the whole file is read at once, so its pages come
        // in one call rather than a fault each.
        void* map = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
        if (map != MAP_FAILED) {
            file.m_map = map;
            file.m_size = size;
        }
    }
    if (fd >= 0) {
        ::close(fd);
    }
    if (file.m_map != nullptr) {
        return file;
    }
    auto text = read_file(path);
    if (!text) {
        return unexpected(text.error());
    }
    file.m_copy = std::move(*text);
    return file;
}

void
MappedFile::release_before(std::size_t offset)
{
    static const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    const std::size_t end = std::min(offset, m_size) / page * page;
    if (m_map == nullptr || end <= m_released) {
        return;
    }
    // MADV_DONTNEED on a private read-only mapping drops the pages; a later
    // read would fault them in again from the page cache.
    (void)::madvise(static_cast<char*>(m_map) + m_released, end - m_released, MADV_DONTNEED);
    m_released = end;
}

MappedFile::MappedFile(MappedFile&& other) noexcept
    : m_map(std::exchange(other.m_map, nullptr)), m_size(std::exchange(other.m_size, 0)),
      m_released(std::exchange(other.m_released, 0)), m_copy(std::move(other.m_copy))
{}

MappedFile&
MappedFile::operator=(MappedFile&& other) noexcept
{
    if (this != &other) {
        if (m_map != nullptr) {
            ::munmap(m_map, m_size);
        }
        m_map = std::exchange(other.m_map, nullptr);
        m_size = std::exchange(other.m_size, 0);
        m_released = std::exchange(other.m_released, 0);
        m_copy = std::move(other.m_copy);
    }
    return *this;
}

MappedFile::~MappedFile()
{
    if (m_map != nullptr) {
        ::munmap(m_map, m_size);
    }
}

} // namespace cachewise::tokenize
