#include "report/text_table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace cachewise::report {

std::size_t
display_width(const std::string& text)
{
    // Continuation bytes (10xxxxxx) do not start a code point.
    return static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) {
        return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    }));
}

TextTable::TextTable(std::vector<Column> columns, std::string indent)
    : m_columns(std::move(columns)), m_indent(std::move(indent))
{}

namespace {

std::vector<TextTable::Column>
parse_layout(std::string_view layout)
{
    if (layout.empty()) {
        throw std::invalid_argument("text table layout: empty");
    }
    std::vector<TextTable::Column> columns;
    std::size_t i = 0;
    while (i < layout.size()) {
        const std::size_t gap = layout.find_first_not_of(' ', i);
        if (gap == std::string_view::npos || (layout[gap] != '<' && layout[gap] != '>')) {
            throw std::invalid_argument(
                fmt::format("text table layout \"{}\": expected < or > at {}", layout,
                            gap == std::string_view::npos ? layout.size() : gap));
        }
        TextTable::Column column;
        column.separator = std::string(layout.substr(i, gap - i));
        column.align = layout[gap] == '<' ? TextTable::Align::left : TextTable::Align::right;
        i = gap + 1;
        const std::size_t digits =
            std::min(layout.find_first_not_of("0123456789", i), layout.size());
        if (digits == i) {
            throw std::invalid_argument(
                fmt::format("text table layout \"{}\": expected a width at {}", layout, i));
        }
        for (; i < digits; ++i) {
            column.min_width = column.min_width * 10 + static_cast<std::size_t>(layout[i] - '0');
        }
        columns.push_back(std::move(column));
    }
    return columns;
}

} // namespace

TextTable::TextTable(std::string_view layout, std::string indent)
    : TextTable(parse_layout(layout), std::move(indent))
{}

void
TextTable::add_row(std::vector<std::string> cells)
{
    cells.resize(m_columns.size());
    m_rows.push_back(std::move(cells));
}

void
TextTable::print(std::ostream& out) const
{
    std::vector<std::size_t> widths;
    for (const auto& c : m_columns) {
        widths.push_back(c.min_width);
    }
    for (const auto& row : m_rows) {
        for (std::size_t i = 0; i < row.size(); ++i) {
            widths[i] = std::max(widths[i], display_width(row[i]));
        }
    }
    for (const auto& row : m_rows) {
        std::string line = m_indent;
        for (std::size_t i = 0; i < row.size(); ++i) {
            const auto& column = m_columns[i];
            if (i > 0) {
                line += column.separator;
            }
            const std::string padding(widths[i] - display_width(row[i]), ' ');
            const bool last = i + 1 == row.size();
            if (column.align == Align::right) {
                line += padding + row[i];
            } else {
                line += row[i];
                if (!last) {
                    line += padding;
                }
            }
        }
        // An empty last cell (a request without findings) leaves no trailing spaces.
        line.erase(line.find_last_not_of(' ') + 1);
        out << line << '\n';
    }
}

} // namespace cachewise::report
