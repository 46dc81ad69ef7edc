#pragma once

#include <fmt/format.h>

#include <exception>
#include <string>
#include <string_view>

namespace cachewise::ingest {

// Thrown while one record is parsed; the record is then reported and skipped.
// The path grows as the exception unwinds through the parsers ("messages[3]"
// + "content[1]" + "type"), so only the failing record pays for it.
class FieldError : public std::exception {
public:
    FieldError(std::string field, std::string reason)
        : m_field(std::move(field)), m_reason(std::move(reason))
    {}

    // Prepends a parent path: "content[1]" becomes "messages[3].content[1]".
    void prefix(std::string_view parent)
    {
        if (m_field.empty()) {
            m_field = std::string(parent);
        } else if (!m_field.empty() && m_field.front() == '[') {
            m_field = fmt::format("{}{}", parent, m_field);
        } else {
            m_field = fmt::format("{}.{}", parent, m_field);
        }
    }

    [[nodiscard]] const std::string& field() const { return m_field; }
    [[nodiscard]] const std::string& reason() const { return m_reason; }
    [[nodiscard]] const char* what() const noexcept override { return m_reason.c_str(); }

private:
    std::string m_field;
    std::string m_reason;
};

// Runs f(); a FieldError escaping it gains `parent` in front of its path.
template <typename F>
decltype(auto)
within(std::string_view parent, F&& f)
{
    try {
        return f();
    } catch (FieldError& e) {
        e.prefix(parent);
        throw;
    }
}

// The same for an array element: the path gains "key[index]".
template <typename F>
decltype(auto)
within(std::string_view key, std::size_t index, F&& f)
{
    try {
        return f();
    } catch (FieldError& e) {
        e.prefix(fmt::format("{}[{}]", key, index));
        throw;
    }
}

} // namespace cachewise::ingest
