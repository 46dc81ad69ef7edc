#pragma once

#include "util/error.hpp"

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace cachewise {

// A small stand-in for C++23 std::expected: low-level functions return a value
// or an error message; commands turn the error into an Error with context.
template <typename E> struct Unexpected {
    E error;
};

template <typename E>
Unexpected<std::decay_t<E>>
unexpected(E&& error)
{
    return {std::forward<E>(error)};
}

template <typename T, typename E = std::string> class Expected {
public:
    Expected(T value) : m_state(std::in_place_index<0>, std::move(value)) {}
    template <typename U>
    Expected(Unexpected<U> error) : m_state(std::in_place_index<1>, std::move(error.error))
    {}

    [[nodiscard]] bool has_value() const noexcept { return m_state.index() == 0; }
    explicit operator bool() const noexcept { return has_value(); }

    T& value() &
    {
        assert(has_value());
        return std::get<0>(m_state);
    }
    const T& value() const&
    {
        assert(has_value());
        return std::get<0>(m_state);
    }
    T&& value() &&
    {
        assert(has_value());
        return std::get<0>(std::move(m_state));
    }
    T& operator*() & { return value(); }
    const T& operator*() const& { return value(); }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }

    const E& error() const
    {
        assert(!has_value());
        return std::get<1>(m_state);
    }

    template <typename U> T value_or(U&& fallback) const&
    {
        return has_value() ? value() : static_cast<T>(std::forward<U>(fallback));
    }

private:
    std::variant<T, E> m_state;
};

// Connects the two layers: a low-level error becomes a thrown Error with context.
template <typename T>
T
value_or_throw(Expected<T> result, const std::string& context)
{
    if (!result) {
        throw Error(context.empty() ? result.error() : context + ": " + result.error());
    }
    return std::move(result).value();
}

} // namespace cachewise
