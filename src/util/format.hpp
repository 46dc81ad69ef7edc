#pragma once

#include <cstdint>
#include <string>

namespace cachewise {

// 1234567 -> "1,234,567"
std::string group_digits(std::int64_t value);

// 1536 -> "1.5 KiB"
std::string human_bytes(std::uint64_t bytes);

} // namespace cachewise
