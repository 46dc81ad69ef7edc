#include "util/format.hpp"

#include <fmt/format.h>

namespace cachewise {

namespace {

// "1234567" -> "1,234,567"
std::string
group(const std::string& digits)
{
    std::string out;
    out.reserve(digits.size() + digits.size() / 3 + 1);
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) {
            out.push_back(',');
        }
        out.push_back(digits[i]);
    }
    return out;
}

} // namespace

std::string
group_digits(std::int64_t value)
{
    const bool negative = value < 0;
    const std::string digits = group(std::to_string(negative ? -static_cast<std::uint64_t>(value)
                                                             : static_cast<std::uint64_t>(value)));
    return negative ? "-" + digits : digits;
}

std::string
group_count(std::uint64_t n)
{
    return group(std::to_string(n));
}

std::string
count_noun(std::uint64_t n, std::string_view singular, std::string_view plural)
{
    const std::string digits = group_count(n);
    if (n == 1) {
        return fmt::format("{} {}", digits, singular);
    }
    return plural.empty() ? fmt::format("{} {}s", digits, singular)
                          : fmt::format("{} {}", digits, plural);
}

std::string
with_article(std::string_view noun)
{
    const bool vowel =
        !noun.empty() && std::string_view("aeioAEIO").find(noun[0]) != std::string_view::npos;
    return fmt::format("{} {}", vowel ? "an" : "a", noun);
}

std::string
format_percent(double fraction)
{
    return fmt::format("{:.1f}%", 100.0 * fraction);
}

std::string
format_usd(double usd)
{
    // A difference of equal costs can come out as -0 or a rounding speck
    // below zero: money that is none reads 0.000000, never -0.000000.
    std::string text = fmt::format("{:.6f}", usd);
    if (text == "-0.000000") {
        text.erase(0, 1);
    }
    return text;
}

std::string
human_bytes(std::uint64_t bytes)
{
    static constexpr const char* k_units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double value = static_cast<double>(bytes);
    std::size_t unit = 0;
    while (value >= 1024 && unit + 1 < std::size(k_units)) {
        value /= 1024;
        ++unit;
    }
    return unit == 0 ? fmt::format("{} B", bytes) : fmt::format("{:.1f} {}", value, k_units[unit]);
}

} // namespace cachewise
