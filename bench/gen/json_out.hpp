#pragma once

#include "gen/rng.hpp"

#include <fmt/format.h>

#include <iterator>
#include <string>
#include <string_view>
#include <utility>

namespace cachewise::gen {

// JSON output, appended to a std::string buffer.

// --ascii: put_str escapes every non-ASCII character as \uXXXX (surrogate
// pairs above U+FFFF), the way Python's json.dumps writes by default. Set it
// before rendering anything: the tool catalog is rendered once, up front.
void set_ascii_output(bool ascii);

// A JSON string literal. The input is valid UTF-8 (the generator makes it).
void put_str(std::string& out, std::string_view s);

template <typename... Args>
void
put_fmt(std::string& out, fmt::format_string<Args...> f, Args&&... args)
{
    fmt::format_to(std::back_inserter(out), f, std::forward<Args>(args)...);
}

// RFC 3339 UTC with milliseconds, quoted, from epoch seconds.
void put_time(std::string& out, double t);

// A random version-4 UUID, lower-case hex.
std::string uuid(Rng& rng);

// `prefix` and `n` random base-62 characters (request, message and tool ids).
std::string base62_id(Rng& rng, std::string_view prefix, int n);

} // namespace cachewise::gen
