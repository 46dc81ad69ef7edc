// libFuzzer harness for .cachewise.json: a setting or an input error, never
// a crash.
#include "cli/settings.hpp"
#include "util/error.hpp"

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

extern "C" int
LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    using namespace cachewise;
    static const std::filesystem::path dir =
        std::filesystem::temp_directory_path() /
        ("cachewise-fuzz-config-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    {
        std::ofstream out(dir / ".cachewise.json", std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    }
    try {
        const auto settings = cli::resolve_settings({}, {}, "lint", dir);
        for (const auto& key : cli::key_table()) {
            (void)cli::value_text(settings, key.key);
        }
    } catch (const Error&) {
    }
    return 0;
}
