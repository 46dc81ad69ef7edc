#include "util/time.hpp"

#include <doctest/doctest.h>

using namespace cachewise;

TEST_SUITE("util::time")
{
    TEST_CASE("RFC 3339 times with zone, offset and fractions parse to UTC microseconds")
    {
        const auto z = parse_rfc3339("2025-09-03T00:52:31.217Z");
        REQUIRE(z);
        CHECK(format_rfc3339(*z) == "2025-09-03T00:52:31.217Z");

        const auto offset = parse_rfc3339("2025-09-03T02:52:31.217+02:00");
        REQUIRE(offset);
        CHECK(offset->micros == z->micros);

        const auto micros = parse_rfc3339("1970-01-01T00:00:01.000001Z");
        REQUIRE(micros);
        CHECK(micros->micros == 1000001);

        const auto space = parse_rfc3339("2024-02-29 23:59:59z");
        REQUIRE(space);
        CHECK(format_rfc3339(*space) == "2024-02-29T23:59:59.000Z");
    }

    TEST_CASE("invalid times say what is wrong")
    {
        CHECK(parse_rfc3339("2025-09-03").error().find("expected 'T'") != std::string::npos);
        CHECK(parse_rfc3339("2025-09-03T00:52:31").error().find("missing time zone") !=
              std::string::npos);
        CHECK(parse_rfc3339("2025-02-30T00:00:00Z").error().find("out of range") !=
              std::string::npos);
        CHECK(parse_rfc3339("2023-02-29T00:00:00Z").error().find("out of range") !=
              std::string::npos);
        CHECK(!parse_rfc3339("2025-09-03T00:52:31Zjunk"));
        CHECK(!parse_rfc3339("2025-09-03T00:52:31.Z"));
        CHECK(!parse_rfc3339(""));
    }

    TEST_CASE("epoch seconds, and milliseconds are refused rather than guessed")
    {
        const auto t = from_epoch_seconds(1757015025.972);
        REQUIRE(t);
        CHECK(format_rfc3339(*t) == "2025-09-04T19:43:45.972Z");
        CHECK(from_epoch_seconds(1757015025972.0).error().find("milliseconds") !=
              std::string::npos);
        CHECK(!from_epoch_seconds(-1));
    }

    TEST_CASE("seconds_between")
    {
        const auto a = *parse_rfc3339("2026-01-01T00:00:00Z");
        const auto b = *parse_rfc3339("2026-01-01T00:05:00.5Z");
        CHECK(seconds_between(a, b) == doctest::Approx(300.5));
    }

    TEST_CASE("durations: units from the largest down, each once, always one")
    {
        CHECK(*parse_duration("1h30m") == doctest::Approx(5400));
        CHECK(*parse_duration("90s") == doctest::Approx(90));
        CHECK(*parse_duration("1.5h") == doctest::Approx(5400));
        CHECK(*parse_duration("2d1h1m1s") == doctest::Approx(2 * 86400 + 3661));
        for (const std::string bad :
             {"", "1.5", "90", "1m1m", "1s30m", "1h30", "h", "1x", "-1h", "1e3s", "1..5h"}) {
            CAPTURE(bad);
            CHECK(!parse_duration(bad));
        }
        CHECK(parse_duration("99999999999999999999h").error().find("longer than 3650d") !=
              std::string::npos);
    }
}
