// libFuzzer harness for the redactor and the escaper: matches lie inside
// the text, redaction is idempotent, escaped text has no
// control byte.
#include "util/escape.hpp"
#include "util/redact.hpp"

#include <cstdint>
#include <string>

extern "C" int
LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    using namespace cachewise;
    const std::string text(reinterpret_cast<const char*>(data), size);
    std::size_t last_end = 0;
    for (const auto& m : find_secrets(text)) {
        if (m.offset < last_end || m.offset + m.length > text.size() || m.keep > m.length) {
            __builtin_trap();
        }
        last_end = m.offset + m.length;
    }
    const std::string once = redact(text);
    if (redact(once) != once) {
        __builtin_trap();
    }
    for (const char c : escape_control(text)) {
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
            __builtin_trap();
        }
    }
    return 0;
}
