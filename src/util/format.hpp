#pragma once

#include <cstdint>
#include <string>

namespace cachewise {

// 1234567 -> "1,234,567"
std::string group_digits(std::int64_t value);

// 0.7079 -> "70.8%": every report's percentages
std::string format_percent(double fraction);

// 0.1838961 -> "0.183896": every report's dollar amounts (USD, 6 decimals)
std::string format_usd(double usd);

// 1536 -> "1.5 KiB"
std::string human_bytes(std::uint64_t bytes);

} // namespace cachewise
