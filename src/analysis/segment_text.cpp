#include "analysis/segment_text.hpp"

#include "util/escape.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <simdjson.h>

namespace cachewise::analysis {

using nlohmann::json;

namespace {

json
parse_or_null(std::string_view text)
{
    return json::parse(text.begin(), text.end(), nullptr, false);
}

} // namespace

bool
canonical_equal(std::string_view a, std::string_view b)
{
    const json ja = parse_or_null(a);
    const json jb = parse_or_null(b);
    // nlohmann's objects are ordered maps and its == compares numbers by value.
    return !ja.is_discarded() && !jb.is_discarded() && ja == jb;
}

std::string
tool_name(std::string_view rendered)
{
    const json j = parse_or_null(rendered);
    if (!j.is_object()) {
        return {};
    }
    if (j.contains("name") && j["name"].is_string()) {
        return j["name"].get<std::string>();
    }
    // OpenAI {"function": {"name"}}, Bedrock {"toolSpec": {"name"}}.
    for (const char* wrapper : {"function", "toolSpec"}) {
        if (j.contains(wrapper) && j[wrapper].is_object() && j[wrapper].contains("name") &&
            j[wrapper]["name"].is_string()) {
            return j[wrapper]["name"].get<std::string>();
        }
    }
    return {};
}

std::size_t
utf8_length(std::string_view text, std::size_t bytes)
{
    std::size_t n = 0;
    for (std::size_t i = 0; i < std::min(bytes, text.size()); ++i) {
        if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) {
            ++n;
        }
    }
    return n;
}

std::size_t
utf8_floor(std::string_view text, std::size_t pos)
{
    while (pos > 0 && pos < text.size() && (static_cast<unsigned char>(text[pos]) & 0xC0) == 0x80) {
        --pos;
    }
    return pos;
}

std::string
printable(std::string_view text)
{
    static constexpr ByteEscape k_escapes[] = {{'\n', "\\n"}, {'\t', "\\t"}, {'\r', "\\r"}};
    return escape_bytes(text, k_escapes, [](std::string& out, char c) {
        if (static_cast<unsigned char>(c) < 0x20) {
            out += fmt::format("\\u{:04x}", static_cast<unsigned>(c));
        } else {
            out.push_back(c);
        }
    });
}

} // namespace cachewise::analysis
