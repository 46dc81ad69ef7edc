#include "report/text_table.hpp"

#include <algorithm>

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
