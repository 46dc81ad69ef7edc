#include "report/json_writer.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <iterator>

namespace cachewise::report {

namespace {

// True when nlohmann writes `text` between its quotes as it is: printable
// ASCII without a quote or a backslash.
bool
plain(std::string_view text)
{
    return std::ranges::all_of(text, [](char c) {
        const auto u = static_cast<unsigned char>(c);
        return u >= 0x20 && u <= 0x7E && c != '"' && c != '\\';
    });
}

std::string
nlohmann_dump(const nlohmann::ordered_json& j)
{
    return j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

} // namespace

void
JsonWriter::newline_indent(std::size_t depth)
{
    m_out->push_back('\n');
    m_out->append(static_cast<std::size_t>(m_indent) + 2 * depth, ' ');
}

// Where a value goes: after its key, as an array's next element, or at the
// top level.
void
JsonWriter::before_value()
{
    if (m_after_key) {
        m_after_key = false;
        return;
    }
    if (m_open.empty()) {
        return;
    }
    Open& open = m_open.back();
    if (!open.empty) {
        m_out->push_back(',');
    }
    open.empty = false;
    newline_indent(m_open.size());
}

JsonWriter&
JsonWriter::key(std::string_view name)
{
    before_value();
    m_out->push_back('"');
    if (plain(name)) {
        m_out->append(name);
    } else {
        const std::string quoted = nlohmann_dump(std::string(name));
        m_out->append(quoted, 1, quoted.size() - 2);
    }
    m_out->append("\": ");
    m_after_key = true;
    return *this;
}

JsonWriter&
JsonWriter::open(char opening, char closing)
{
    before_value();
    m_out->push_back(opening);
    m_open.push_back(Open{closing});
    return *this;
}

JsonWriter&
JsonWriter::end()
{
    const Open open = m_open.back();
    m_open.pop_back();
    if (!open.empty) {
        newline_indent(m_open.size());
    }
    m_out->push_back(open.close);
    return *this;
}

JsonWriter&
JsonWriter::value(std::string_view text)
{
    before_value();
    if (plain(text)) {
        m_out->push_back('"');
        m_out->append(text);
        m_out->push_back('"');
    } else {
        m_out->append(nlohmann_dump(std::string(text)));
    }
    return *this;
}

JsonWriter&
JsonWriter::value(bool b)
{
    before_value();
    m_out->append(b ? "true" : "false");
    return *this;
}

JsonWriter&
JsonWriter::value(double number)
{
    before_value();
    m_out->append(nlohmann_dump(number));
    return *this;
}

JsonWriter&
JsonWriter::null()
{
    before_value();
    m_out->append("null");
    return *this;
}

JsonWriter&
JsonWriter::integer(std::int64_t number)
{
    before_value();
    fmt::format_to(std::back_inserter(*m_out), "{}", number);
    return *this;
}

JsonWriter&
JsonWriter::integer(std::uint64_t number)
{
    before_value();
    fmt::format_to(std::back_inserter(*m_out), "{}", number);
    return *this;
}

} // namespace cachewise::report
