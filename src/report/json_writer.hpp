#pragma once

#include <concepts>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace cachewise::report {

// Writes JSON laid out byte for byte as nlohmann's dump(2) lays it out,
// value by value, without building a document. For the per-request rows of
// analyze and audit: a 1 GB Claude Code folder has 66,652 of them, and an
// ordered_json per row (its keys and strings allocated, then dumped, then
// indented again) took a quarter of `audit --format json`.
//
// Strings nlohmann would write unchanged are written directly; any other
// string and every floating-point number is written by nlohmann itself, so
// escapes, invalid UTF-8 (replaced) and number formats stay its own.
class JsonWriter {
public:
    // Appends to `out`; a value opened at the top level sits at column
    // `indent` (its members two spaces further in).
    JsonWriter(std::string& out, int indent) : m_out(&out), m_indent(indent) {}

    JsonWriter& object() { return open('{', '}'); }
    JsonWriter& array() { return open('[', ']'); }
    JsonWriter& end(); // closes the innermost object or array
    JsonWriter& key(std::string_view name);

    JsonWriter& value(std::string_view text);
    JsonWriter& value(const char* text) { return value(std::string_view(text)); }
    JsonWriter& value(bool b);
    JsonWriter& value(double number);
    template <std::integral T>
    requires(!std::same_as<T, bool>) JsonWriter& value(T number)
    {
        if constexpr (std::is_signed_v<T>) {
            return integer(static_cast<std::int64_t>(number));
        } else {
            return integer(static_cast<std::uint64_t>(number));
        }
    }
    JsonWriter& null();

    template <typename T> JsonWriter& member(std::string_view name, const T& v)
    {
        key(name);
        return value(v);
    }
    // null where the value is absent.
    template <typename T> JsonWriter& member(std::string_view name, const std::optional<T>& v)
    {
        key(name);
        return v ? value(*v) : null();
    }
    // null where the text is empty, as or_null writes it.
    JsonWriter& member_or_null(std::string_view name, std::string_view text)
    {
        key(name);
        return text.empty() ? null() : value(text);
    }

private:
    JsonWriter& open(char opening, char closing);
    void before_value();
    void newline_indent(std::size_t depth);
    JsonWriter& integer(std::int64_t number);
    JsonWriter& integer(std::uint64_t number);

    struct Open {
        char close;
        bool empty = true;
    };
    std::string* m_out;
    int m_indent;
    std::vector<Open> m_open;
    bool m_after_key = false;
};

} // namespace cachewise::report
