#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace cachewise {

// Every human-readable report (text, Markdown, HTML, annotations, SARIF
// messages, standard error) formats its numbers with these; JSON and CSV keep
// raw numbers.

// 1234567 -> "1,234,567": token, request, byte, block, file and finding counts
std::string group_digits(std::int64_t value);
// The same for a count that cannot be negative (sizes, numbers of things).
std::string group_count(std::uint64_t n);

// (1, "request") -> "1 request"; (2048, "request") -> "2,048 requests";
// (3, "prefix", "prefixes") -> "3 prefixes" where the plural is not noun + "s"
std::string count_noun(std::uint64_t n, std::string_view singular, std::string_view plural = {});

// 0.7079 -> "70.8%": every report's percentages
// "a date", "an epoch": the indefinite article a noun takes (by its first
// letter; a "uuid" is said with a consonant).
std::string with_article(std::string_view noun);

std::string format_percent(double fraction);

// 0.1838961 -> "0.183896": every report's dollar amounts, in USD with 6
// decimals (a cached read of a few tokens costs well under a cent) and no
// thousands separator (an amount pastes into a spreadsheet as it is), followed
// by " USD" in running text or under a "USD" column heading
std::string format_usd(double usd);

// 1536 -> "1.5 KiB"
std::string human_bytes(std::uint64_t bytes);

} // namespace cachewise
