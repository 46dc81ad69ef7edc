#pragma once

#include "ingest/field_error.hpp"

#include <fmt/format.h>
#include <simdjson.h>

#include <optional>
#include <string_view>
#include <utility>

namespace cachewise::ingest {

namespace od = simdjson::ondemand;

// Small helpers that turn simdjson's error codes into FieldErrors with a
// message a user can act on.

// Human name of a JSON type, for messages ("a string", "an array").
std::string_view describe(od::json_type type);

// Starts iterating `len` bytes at `data` (readable up to `capacity`, which
// holds simdjson's padding) with room for every string and key in them to be
// unescaped twice. simdjson sizes its string buffer for one pass over a
// document (5/3 of its length) and writes past it when a value is unescaped
// again; the readers do that where they look at an object's members before
// rendering it whole (a Bedrock block's cachePoint, a Responses item's role).
// Where the larger buffer cannot be had, the parser keeps what it has.
simdjson::simdjson_result<od::document> iterate_twice_room(od::parser& parser, const char* data,
                                                           std::size_t len, std::size_t capacity);
simdjson::simdjson_result<od::document> iterate_twice_room(od::parser& parser,
                                                           const simdjson::padded_string& text);

namespace detail {

// The value `result` holds, or a FieldError "`lead``what`: simdjson's message"
// (two views, so that nothing is formatted unless there is an error).
template <typename T>
T
checked(simdjson::simdjson_result<T> result, std::string_view lead, std::string_view what)
{
    T out{};
    if (const auto error = std::move(result).get(out); error) {
        throw FieldError("", fmt::format("{}{}: {}", lead, what, simdjson::error_message(error)));
    }
    return out;
}

} // namespace detail

template <typename T>
T
get(simdjson::simdjson_result<T> result, std::string_view expected)
{
    return detail::checked(std::move(result), "expected ", expected);
}

inline od::json_type
type_of(od::value& v)
{
    return get(v.type(), "a JSON value");
}

[[noreturn]] inline void
wrong_type(std::string_view expected, od::json_type found)
{
    throw FieldError("", fmt::format("expected {}, found {}", expected, describe(found)));
}

// A JSON string; anything else throws FieldError "expected <expected>,
// found <type>" (the values a field takes, such as "\"5m\" or \"1h\"").
inline std::string_view
get_string(od::value& v, std::string_view expected = "a string")
{
    const auto t = type_of(v);
    if (t != od::json_type::string) {
        wrong_type(expected, t);
    }
    return get(v.get_string(), "a string");
}

// False where `v` is null (an optional member given as null); throws
// wrong_type(expected) unless it is of type `want`.
inline bool
present(od::value& v, od::json_type want, std::string_view expected)
{
    const auto t = type_of(v);
    if (t == od::json_type::null) {
        return false;
    }
    if (t != want) {
        wrong_type(expected, t);
    }
    return true;
}

// The unescaped key of an object member (consumes it: call once per member).
template <typename Field>
std::string_view
key_of(Field& field)
{
    return detail::checked(field.unescaped_key(), "invalid ", "object key");
}

// Calls f(element, index) for each element of an array value; an error
// inside gains "[index]" in its path. `expected` names the array for the
// error when the value is something else.
template <typename F>
void
for_each_element(od::value& value, std::string_view expected, std::string_view element_name, F&& f)
{
    if (type_of(value) != od::json_type::array) {
        wrong_type(expected, type_of(value));
    }
    int index = 0;
    for (auto element : get(value.get_array(), "an array")) {
        od::value v = get(element, element_name);
        within("", static_cast<std::size_t>(index), [&] { f(v, index); });
        ++index;
    }
}

// Calls f(key, value) for each member of an object value (one the caller
// has seen to be an object).
template <typename F>
void
for_each_member(od::value& value, F&& f)
{
    for (auto field : get(value.get_object(), "an object")) {
        const auto key = key_of(field);
        od::value v = get(field.value(), "a value");
        f(key, v);
    }
}

// The same for a value that may be anything: `expected` names the object
// for the error when it is something else.
template <typename F>
void
for_each_member(od::value& value, std::string_view expected, F&& f)
{
    if (type_of(value) != od::json_type::object) {
        wrong_type(expected, type_of(value));
    }
    for_each_member(value, std::forward<F>(f));
}

template <typename Field>
od::value
value_of(Field& field)
{
    return detail::checked(field.value(), "invalid ", "value");
}

// The value of an object's first member named `key`, or nullopt; reading
// stops there (the object is consumed up to that member).
inline std::optional<od::value>
member_of(od::object object, std::string_view key)
{
    for (auto field : object) {
        if (key_of(field) == key) {
            return value_of(field);
        }
    }
    return std::nullopt;
}

// The same for a value: nullopt also when it is not an object.
inline std::optional<od::value>
member_of(od::value& value, std::string_view key)
{
    if (type_of(value) != od::json_type::object) {
        return std::nullopt;
    }
    return member_of(get(value.get_object(), "an object"), key);
}

} // namespace cachewise::ingest
