#include "live/retry.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <ctime>
#include <string>

namespace cachewise::live {

bool
retryable_status(long status)
{
    return status == 429 || status == 529 || (status >= 500 && status <= 599);
}

namespace {

std::optional<double>
parse_http_date(std::string_view value)
{
    // IMF-fixdate, the form RFC 9110 requires senders to use:
    // "Sun, 06 Nov 1994 08:49:37 GMT".
    std::tm tm{};
    const std::string text(value);
    const char* end = strptime(text.c_str(), "%a, %d %b %Y %H:%M:%S GMT", &tm);
    if (end == nullptr || *end != '\0') {
        return std::nullopt;
    }
    return static_cast<double>(timegm(&tm));
}

} // namespace

std::optional<std::chrono::milliseconds>
parse_retry_after(std::string_view value, double now_epoch_seconds)
{
    while (!value.empty() && value.front() == ' ') {
        value.remove_prefix(1);
    }
    double seconds = 0;
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), seconds);
    if (ec == std::errc() && end == value.data() + value.size()) {
        if (!(seconds >= 0) || seconds > 86'400) {
            return std::nullopt;
        }
        return std::chrono::milliseconds(std::llround(seconds * 1000));
    }
    if (const auto at = parse_http_date(value)) {
        const double wait = std::max(0.0, *at - now_epoch_seconds);
        return std::chrono::milliseconds(std::llround(std::min(wait, 86'400.0) * 1000));
    }
    return std::nullopt;
}

std::chrono::milliseconds
backoff_delay(int retry, const RetryPolicy& policy,
              std::optional<std::chrono::milliseconds> retry_after, double jitter)
{
    if (retry_after) {
        return std::min(*retry_after, policy.max_delay);
    }
    const double exponential = static_cast<double>(policy.base_delay.count()) *
                               std::pow(2.0, static_cast<double>(std::max(0, retry - 1)));
    const double capped = std::min(exponential, static_cast<double>(policy.max_delay.count()));
    return std::chrono::milliseconds(
        std::llround(capped * (0.5 + 0.5 * std::clamp(jitter, 0.0, 1.0))));
}

} // namespace cachewise::live
