#pragma once
// The file a harness writes each input to, for code that reads a path. One
// per process, removed when the process exits, so that campaigns and the
// replay tests do not leave one file per run behind in the temporary folder.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>
#include <unistd.h>

namespace cachewise::fuzz {

class ScratchFile {
public:
    // `name` becomes cachewise-fuzz-<pid>-<name> in the temporary folder;
    // with `in_folder`, a folder of that name holding `name` itself.
    explicit ScratchFile(const std::string& name, bool in_folder = false)
    {
        const auto temp = std::filesystem::temp_directory_path();
        const std::string own = "cachewise-fuzz-" + std::to_string(::getpid()) + "-" + name;
        if (in_folder) {
            m_remove = temp / own;
            std::filesystem::create_directories(m_remove);
            m_path = m_remove / name;
        } else {
            m_remove = m_path = temp / own;
        }
    }
    ~ScratchFile()
    {
        std::error_code ignored;
        std::filesystem::remove_all(m_remove, ignored);
    }
    ScratchFile(const ScratchFile&) = delete;
    ScratchFile& operator=(const ScratchFile&) = delete;

    // Writes the input over what the last one left.
    const std::filesystem::path& write(const std::uint8_t* data, std::size_t size) const
    {
        std::ofstream out(m_path, std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
        return m_path;
    }
    [[nodiscard]] const std::filesystem::path& folder_or_file() const { return m_remove; }

private:
    std::filesystem::path m_path;
    std::filesystem::path m_remove;
};

} // namespace cachewise::fuzz
