#include "live/retry.hpp"

#include <doctest/doctest.h>

using namespace cachewise::live;
using std::chrono::milliseconds;

TEST_SUITE("live::retry")
{
    TEST_CASE("rate limits, overload and server errors are retried; answers are not")
    {
        CHECK(retryable_status(429));
        CHECK(retryable_status(529));
        CHECK(retryable_status(500));
        CHECK(retryable_status(503));
        CHECK_FALSE(retryable_status(400));
        CHECK_FALSE(retryable_status(401));
        CHECK_FALSE(retryable_status(404));
        CHECK_FALSE(retryable_status(200));
    }

    TEST_CASE("retry-after is read as seconds or as an HTTP date")
    {
        CHECK(parse_retry_after("2", 0) == milliseconds(2000));
        CHECK(parse_retry_after(" 0.5", 0) == milliseconds(500));
        // Wed, 21 Oct 2015 07:28:00 GMT is 1445412480 seconds after the epoch.
        CHECK(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT", 1445412480.0 - 30) ==
              milliseconds(30'000));
        CHECK(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT", 1445412480.0 + 30) ==
              milliseconds(0));
        CHECK_FALSE(parse_retry_after("soon", 0).has_value());
        CHECK_FALSE(parse_retry_after("-1", 0).has_value());
        CHECK_FALSE(parse_retry_after("", 0).has_value());
    }

    TEST_CASE("backoff doubles with jitter, is capped, and defers to retry-after")
    {
        RetryPolicy p;
        p.base_delay = milliseconds(1000);
        p.max_delay = milliseconds(5000);
        CHECK(backoff_delay(1, p, std::nullopt, 0.0) == milliseconds(500));
        CHECK(backoff_delay(1, p, std::nullopt, 1.0) == milliseconds(1000));
        CHECK(backoff_delay(2, p, std::nullopt, 1.0) == milliseconds(2000));
        CHECK(backoff_delay(3, p, std::nullopt, 0.5) == milliseconds(3000));
        CHECK(backoff_delay(6, p, std::nullopt, 1.0) == milliseconds(5000));
        CHECK(backoff_delay(1, p, milliseconds(1500), 0.0) == milliseconds(1500));
        CHECK(backoff_delay(1, p, milliseconds(90'000), 0.0) == milliseconds(5000));
    }
}
