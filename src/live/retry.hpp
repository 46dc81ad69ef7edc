#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string_view>

namespace cachewise::live {

// How often and how long a call is tried again. Every call costs money or
// rate limit, so both the count and the total waiting time are bounded.
struct RetryPolicy {
    int max_retries = 3;                              // tries after the first
    std::chrono::milliseconds base_delay{1'000};      // doubled each retry
    std::chrono::milliseconds max_delay{30'000};      // one wait at most
    std::chrono::milliseconds max_total_wait{60'000}; // all waits of one call together
};

// 429 (rate limited), 529 (Anthropic overloaded) and 5xx are worth another
// try; other statuses are answers.
bool retryable_status(long status);

// A retry-after header: delta seconds (fractions accepted) or an HTTP date
// relative to `now_epoch_seconds`. Nothing when it reads as neither.
std::optional<std::chrono::milliseconds> parse_retry_after(std::string_view value,
                                                           double now_epoch_seconds);

// The wait before retry `retry` (1-based): the provider's retry-after when it
// gave one, else exponential backoff with jitter: base × 2^(retry-1), capped
// at max_delay, times 0.5 + 0.5 × `jitter` (`jitter` in [0, 1)), so that
// clients that failed together do not retry together. Never above max_delay. `jitter` is a
// parameter so that tests are deterministic.
std::chrono::milliseconds backoff_delay(int retry, const RetryPolicy& policy,
                                        std::optional<std::chrono::milliseconds> retry_after,
                                        double jitter);

} // namespace cachewise::live
