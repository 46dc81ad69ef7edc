#pragma once

#include <array>
#include <cstddef>
#include <string_view>

// The printed name of each enumerator of an enum, as a table in place of a
// switch. A switch over every enumerator is kept complete by -Wswitch; the
// table keeps that guarantee at compile time: names_of<E> takes exactly one
// name per enumerator, in declaration order, or the build fails (enum_count
// finds the enumerators, as magic_enum does, from how the compiler spells a
// value in __PRETTY_FUNCTION__: a named one as "E::name", another as "(E)5"
// or "5"). So an enumerator added without a name fails the build, as it did
// with the switch; the names follow the declaration's order.
//
//   constexpr auto k_color_names = util::names_of<Color>({"red", "green"});
//   std::string_view to_string(Color c) { return k_color_names[c]; }
//
// For scoped enums whose enumerators count from 0 without gaps (all of ours:
// an unscoped enum without a fixed type has no values past its range in a
// constant expression).
namespace cachewise::util {

namespace detail {

// The value as the compiler spells it, after "V = " and before the last "]"
// (g++: "[with auto V = ns::E::name]", clang: "[V = ns::E::name]"): a named
// enumerator ends in "::name", another value in ")5" ("(ns::E)5"), also for
// an enum in an anonymous namespace, which prints as "(anonymous namespace)".
template <auto V>
constexpr bool
is_enumerator()
{
    const std::string_view f = __PRETTY_FUNCTION__;
    const auto begin = f.rfind("= ");
    const auto end = f.rfind(']');
    if (begin == std::string_view::npos || end == std::string_view::npos || end < begin) {
        return false;
    }
    const std::string_view value = f.substr(begin + 2, end - begin - 2);
    const auto separator = value.find_last_of(":)");
    return separator != std::string_view::npos && value[separator] == ':';
}

} // namespace detail

// How many enumerators E has, counting 0, 1, 2… until a value is unnamed.
template <typename E, std::size_t I = 0>
constexpr std::size_t
enum_count()
{
    if constexpr (I < 256 && detail::is_enumerator<static_cast<E>(I)>()) {
        return enum_count<E, I + 1>();
    } else {
        return I;
    }
}

template <typename E, std::size_t N> class EnumNames {
public:
    constexpr explicit EnumNames(const std::array<std::string_view, N>& names) : m_names(names) {}

    // The name of value; "?" for a value outside the enum (a cast number).
    [[nodiscard]] constexpr std::string_view operator[](E value) const
    {
        const auto i = static_cast<std::size_t>(value);
        return i < N ? m_names[i] : std::string_view("?");
    }

private:
    std::array<std::string_view, N> m_names;
};

template <typename E, std::size_t N>
constexpr EnumNames<E, N>
names_of(const std::string_view (&names)[N])
{
    static_assert(N == enum_count<E>(), "names_of: one name for each enumerator, in order");
    std::array<std::string_view, N> table{};
    for (std::size_t i = 0; i < N; ++i) {
        table[i] = names[i];
    }
    return EnumNames<E, N>(table);
}

} // namespace cachewise::util
