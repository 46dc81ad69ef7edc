// libFuzzer harness for .cachewise.json: a setting or an input error, never
// a crash.
#include "cli/settings.hpp"
#include "scratch_file.hpp"
#include "util/error.hpp"

#include <cstdint>

extern "C" int
// NOLINTNEXTLINE(readability-identifier-naming): the name libFuzzer calls
LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    using namespace cachewise;
    static const fuzz::ScratchFile scratch(".cachewise.json", true);
    (void)scratch.write(data, size);
    try {
        const auto settings = cli::resolve_settings({}, {}, "lint", scratch.folder_or_file());
        for (const auto& key : cli::key_table()) {
            (void)cli::value_text(settings, key.key);
        }
    } catch (const Error&) {
    }
    return 0;
}
