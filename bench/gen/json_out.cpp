#include "gen/json_out.hpp"

#include "util/escape.hpp"

#include <array>
#include <cstddef>
#include <cstdint>

namespace cachewise::gen {

namespace {

bool g_ascii = false; // --ascii: set_ascii_output

constexpr std::array<bool, 256>
make_plain_table(bool ascii)
{
    std::array<bool, 256> t{};
    for (int c = 0; c < 256; ++c) {
        t[static_cast<std::size_t>(c)] =
            c >= 0x20 && c != '"' && c != '\\' && !(ascii && c >= 0x80);
    }
    return t;
}
constexpr auto k_plain_utf8 = make_plain_table(false);
constexpr auto k_plain_ascii = make_plain_table(true);

void
put_u4(std::string& out, unsigned v)
{
    static constexpr char k_hex[] = "0123456789abcdef";
    out += "\\u";
    out.push_back(k_hex[(v >> 12) & 0xF]);
    out.push_back(k_hex[(v >> 8) & 0xF]);
    out.push_back(k_hex[(v >> 4) & 0xF]);
    out.push_back(k_hex[v & 0xF]);
}

} // namespace

void
set_ascii_output(bool ascii)
{
    g_ascii = ascii;
}

void
put_str(std::string& out, std::string_view s)
{
    const auto& plain = g_ascii ? k_plain_ascii : k_plain_utf8;
    out.push_back('"');
    const auto* p = reinterpret_cast<const unsigned char*>(s.data());
    const auto* const end = p + s.size();
    while (p < end) {
        const auto* run = p;
        while (p < end && plain[*p]) {
            ++p;
        }
        out.append(reinterpret_cast<const char*>(run), static_cast<std::size_t>(p - run));
        if (p == end) {
            break;
        }
        const unsigned c = *p;
        if (c >= 0x80) {
            unsigned cp = 0;
            int len = 1;
            if ((c & 0xE0) == 0xC0) {
                cp = c & 0x1F;
                len = 2;
            } else if ((c & 0xF0) == 0xE0) {
                cp = c & 0x0F;
                len = 3;
            } else {
                cp = c & 0x07;
                len = 4;
            }
            for (int i = 1; i < len; ++i) {
                cp = (cp << 6) | (p[i] & 0x3Fu);
            }
            p += len;
            if (cp >= 0x10000) {
                cp -= 0x10000;
                put_u4(out, 0xD800 + (cp >> 10));
                put_u4(out, 0xDC00 + (cp & 0x3FF));
            } else {
                put_u4(out, cp);
            }
            continue;
        }
        ++p;
        if (const std::string_view e = cachewise::json_short_escape(static_cast<unsigned char>(c));
            !e.empty()) {
            out += e;
        } else {
            put_u4(out, c);
        }
    }
    out.push_back('"');
}

void
put_time(std::string& out, double t)
{
    const auto ms_total = static_cast<std::int64_t>(t * 1000.0);
    const std::int64_t secs = ms_total / 1000;
    const std::int64_t ms = ms_total % 1000;
    std::int64_t z = secs / 86400 + 719468; // civil_from_days (H. Hinnant)
    const std::int64_t rem = secs % 86400;
    const std::int64_t era = z / 146097;
    const std::int64_t doe = z - era * 146097;
    const std::int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    const std::int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    const std::int64_t mp = (5 * doy + 2) / 153;
    const std::int64_t d = doy - (153 * mp + 2) / 5 + 1;
    const std::int64_t m = mp < 10 ? mp + 3 : mp - 9;
    const std::int64_t y = yoe + era * 400 + (m <= 2 ? 1 : 0);
    put_fmt(out, "\"{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z\"", y, m, d, rem / 3600,
            rem / 60 % 60, rem % 60, ms);
}

std::string
uuid(Rng& rng)
{
    const std::uint64_t a = rng.next();
    const std::uint64_t b = rng.next();
    return fmt::format("{:08x}-{:04x}-4{:03x}-{:04x}-{:012x}", a >> 32, (a >> 16) & 0xFFFF,
                       a & 0xFFF, 0x8000 | ((b >> 48) & 0x3FFF), b & 0xFFFFFFFFFFFFULL);
}

std::string
base62_id(Rng& rng, std::string_view prefix, int n)
{
    static constexpr char k_alphabet[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    std::string s(prefix);
    for (int i = 0; i < n; ++i) {
        s.push_back(k_alphabet[rng.below(62)]);
    }
    return s;
}

} // namespace cachewise::gen
