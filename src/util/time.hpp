#pragma once

#include "util/expected.hpp"

#include <cstdint>
#include <string>
#include <string_view>

namespace cachewise {

// A UTC instant with microsecond resolution. Logs give times as RFC 3339
// strings or epoch seconds; everything downstream only subtracts them.
struct Timestamp {
    std::int64_t micros = 0;

    friend auto operator<=>(const Timestamp&, const Timestamp&) = default;
};

// "2025-09-03T00:52:31.217Z", "2025-09-03 00:52:31+02:00"; fractions to any
// length (truncated to microseconds). Leap seconds are accepted as :59.
Expected<Timestamp> parse_rfc3339(std::string_view text);

// Epoch seconds (integer or fraction). Values that look like milliseconds are
// rejected rather than guessed.
Expected<Timestamp> from_epoch_seconds(double seconds);

// "2025-09-03T00:52:31.217Z" (milliseconds, always UTC).
std::string format_rfc3339(Timestamp t);

// "90s", "30m", "1h", "1h30m", "2d", or plain seconds ("600").
Expected<double> parse_duration(std::string_view text);

inline double
seconds_between(Timestamp a, Timestamp b)
{
    return static_cast<double>(b.micros - a.micros) / 1e6;
}

} // namespace cachewise
