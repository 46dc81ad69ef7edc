#pragma once

#include "util/expected.hpp"

#include <string>
#include <string_view>

namespace cachewise::tokenize {

// A vocabulary file's bytes, mapped read-only from the page cache instead
// of copied: a rank file is megabytes, and copying it into a string costs
// page faults twice (zeroing, then the copy). A file that cannot be mapped
// (empty, a pipe) is read with read_file instead.
class MappedFile {
public:
    static Expected<MappedFile> open(const std::string& path);
    MappedFile(MappedFile&& other) noexcept;
    MappedFile& operator=(MappedFile&& other) noexcept;
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;
    ~MappedFile();

    // The pages of the first `offset` bytes are needed no more: a mapping
    // gives them back (they count in the resident size until then), and
    // bytes() must not be read below `offset` again.
    void release_before(std::size_t offset);

    [[nodiscard]] std::string_view bytes() const
    {
        return m_map != nullptr ? std::string_view(static_cast<const char*>(m_map), m_size)
                                : std::string_view(m_copy);
    }

private:
    MappedFile() = default;

    void* m_map = nullptr;
    std::size_t m_size = 0;
    std::size_t m_released = 0; // bytes from the start given back, in whole pages
    std::string m_copy;         // when not mapped
};

} // namespace cachewise::tokenize
