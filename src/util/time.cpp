#include "util/time.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>

namespace cachewise {

namespace {

// Howard Hinnant's days_from_civil: days since 1970-01-01 of a proleptic
// Gregorian date.
std::int64_t
days_from_civil(std::int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2;
    const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
    const auto yoe = static_cast<unsigned>(y - era * 400);
    const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

void
civil_from_days(std::int64_t z, std::int64_t& y, unsigned& m, unsigned& d)
{
    z += 719468;
    const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    const auto doe = static_cast<unsigned>(z - era * 146097);
    const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    const unsigned mp = (5 * doy + 2) / 153;
    d = doy - (153 * mp + 2) / 5 + 1;
    m = mp < 10 ? mp + 3 : mp - 9;
    y = static_cast<std::int64_t>(yoe) + era * 400 + (m <= 2);
}

bool
is_leap(std::int64_t y)
{
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

unsigned
days_in_month(std::int64_t y, unsigned m)
{
    static constexpr unsigned k_days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return m == 2 && is_leap(y) ? 29 : k_days[m - 1];
}

class Cursor {
public:
    explicit Cursor(std::string_view text) : m_text(text) {}

    bool digits(std::size_t count, unsigned& out)
    {
        out = 0;
        for (std::size_t i = 0; i < count; ++i) {
            if (m_pos >= m_text.size() || m_text[m_pos] < '0' || m_text[m_pos] > '9') {
                return false;
            }
            out = out * 10 + static_cast<unsigned>(m_text[m_pos++] - '0');
        }
        return true;
    }
    bool literal(char c)
    {
        if (m_pos < m_text.size() && m_text[m_pos] == c) {
            ++m_pos;
            return true;
        }
        return false;
    }
    [[nodiscard]] char peek() const { return m_pos < m_text.size() ? m_text[m_pos] : '\0'; }
    void skip() { ++m_pos; }
    [[nodiscard]] bool done() const { return m_pos == m_text.size(); }

private:
    std::string_view m_text;
    std::size_t m_pos = 0;
};

} // namespace

Expected<Timestamp>
parse_rfc3339(std::string_view text)
{
    const auto bad = [&](std::string_view why) {
        return unexpected(fmt::format("invalid RFC 3339 time \"{}\": {}", text, why));
    };
    Cursor c(text);
    unsigned year = 0;
    unsigned month = 0;
    unsigned day = 0;
    unsigned hour = 0;
    unsigned minute = 0;
    unsigned second = 0;
    if (!c.digits(4, year) || !c.literal('-') || !c.digits(2, month) || !c.literal('-') ||
        !c.digits(2, day)) {
        return bad("expected YYYY-MM-DD");
    }
    if (!(c.literal('T') || c.literal('t') || c.literal(' '))) {
        return bad("expected 'T' between date and time");
    }
    if (!c.digits(2, hour) || !c.literal(':') || !c.digits(2, minute) || !c.literal(':') ||
        !c.digits(2, second)) {
        return bad("expected hh:mm:ss");
    }
    if (month < 1 || month > 12 || day < 1 || day > days_in_month(year, month) || hour > 23 ||
        minute > 59 || second > 60) {
        return bad("field out of range");
    }
    second = std::min(second, 59U);
    std::int64_t micros = 0;
    if (c.literal('.')) {
        std::int64_t scale = 100000;
        bool any = false;
        while (c.peek() >= '0' && c.peek() <= '9') {
            micros += (c.peek() - '0') * scale;
            scale /= 10;
            c.skip();
            any = true;
        }
        if (!any) {
            return bad("expected digits after '.'");
        }
    }
    std::int64_t offset_minutes = 0;
    if (c.literal('Z') || c.literal('z')) {
        // UTC
    } else if (c.peek() == '+' || c.peek() == '-') {
        const int sign = c.peek() == '-' ? -1 : 1;
        c.skip();
        unsigned oh = 0;
        unsigned om = 0;
        if (!c.digits(2, oh) || !c.literal(':') || !c.digits(2, om) || oh > 23 || om > 59) {
            return bad("expected a UTC offset such as +02:00");
        }
        offset_minutes = sign * static_cast<std::int64_t>(oh * 60 + om);
    } else {
        return bad("missing time zone ('Z' or an offset such as +02:00)");
    }
    if (!c.done()) {
        return bad("unexpected text after the time zone");
    }
    const std::int64_t days = days_from_civil(year, month, day);
    const std::int64_t secs = days * 86400 + static_cast<std::int64_t>(hour) * 3600 +
                              static_cast<std::int64_t>(minute) * 60 + second - offset_minutes * 60;
    return Timestamp{secs * 1000000 + micros};
}

Expected<Timestamp>
from_epoch_seconds(double seconds)
{
    if (!std::isfinite(seconds) || seconds < 0) {
        return unexpected(fmt::format("invalid epoch seconds {}", seconds));
    }
    // 1e11 s is the year 5138: such values are epoch milliseconds or microseconds.
    if (seconds >= 1e11) {
        return unexpected(fmt::format(
            "epoch value {} looks like milliseconds; expected seconds since 1970", seconds));
    }
    return Timestamp{static_cast<std::int64_t>(std::llround(seconds * 1e6))};
}

Expected<double>
parse_duration(std::string_view text)
{
    const auto bad = [&] {
        return unexpected(
            fmt::format("invalid duration \"{}\" (expected e.g. 90s, 30m, 1h, 1h30m)", text));
    };
    if (text.empty()) {
        return bad();
    }
    // Units from the largest down, each at most once ("1h30m", not "1m1m"
    // or "1s30m"), and always one: a bare "1.5" says neither minutes nor hours.
    double total = 0;
    double last_unit = 1e300;
    std::size_t i = 0;
    while (i < text.size()) {
        const std::size_t start = i;
        while (i < text.size() && ((text[i] >= '0' && text[i] <= '9') || text[i] == '.')) {
            ++i;
        }
        double value = 0;
        const auto [end, ec] =
            std::from_chars(text.data() + start, text.data() + i, value, std::chars_format::fixed);
        if (i == start || i == text.size() || ec != std::errc() || end != text.data() + i) {
            return bad();
        }
        double unit = 0;
        switch (text[i++]) {
        case 's':
            unit = 1;
            break;
        case 'm':
            unit = 60;
            break;
        case 'h':
            unit = 3600;
            break;
        case 'd':
            unit = 86400;
            break;
        default:
            return bad();
        }
        if (unit >= last_unit) {
            return bad();
        }
        last_unit = unit;
        total += value * unit;
    }
    // Ten years: past that a number is a typing slip, not a window.
    if (total > 3650.0 * 86400) {
        return unexpected(fmt::format("duration \"{}\" is longer than 3650d", text));
    }
    return total;
}

std::string
format_rfc3339(Timestamp t)
{
    std::int64_t micros = t.micros;
    std::int64_t days =
        micros >= 0 ? micros / 86400000000LL : -((-micros + 86399999999LL) / 86400000000LL);
    std::int64_t rem = micros - days * 86400000000LL;
    std::int64_t y = 0;
    unsigned m = 0;
    unsigned d = 0;
    civil_from_days(days, y, m, d);
    const auto secs = rem / 1000000;
    const auto millis = (rem % 1000000) / 1000;
    return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z", y, m, d, secs / 3600,
                       (secs / 60) % 60, secs % 60, millis);
}

} // namespace cachewise
