// libFuzzer harness for the template source map: any text either maps or
// does not, and every question on a map stays inside the text.
#include "util/source_map.hpp"

#include <cstdint>
#include <string>

extern "C" int
// NOLINTNEXTLINE(readability-identifier-naming): the name libFuzzer calls
LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    using namespace cachewise;
    const std::string text(reinterpret_cast<const char*>(data), size);
    const auto map = SourceMap::build(text);
    if (!map) {
        return 0;
    }
    for (const char* path : {"", "system", "system[0].text", "messages[0].content",
                             "messages[1].content[0].text", "tools[0]"}) {
        if (const auto* span = map->find(path)) {
            if (span->begin > text.size() || span->end > text.size()) {
                __builtin_trap();
            }
            for (std::size_t offset : {std::size_t{0}, std::size_t{3}, size}) {
                if (const auto byte = map->string_offset(path, offset);
                    byte && *byte > text.size()) {
                    __builtin_trap();
                }
            }
        }
    }
    (void)map->line_column(size / 2);
    (void)map->line_column(size);
    return 0;
}
