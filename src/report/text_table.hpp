#pragma once

#include <cstddef>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace cachewise::report {

// A text table whose columns widen to their longest cell, so a long id or
// path, or a count with more digits than usual, never pushes the columns after
// it out of line. Widths count code points (ids and paths are UTF-8); no line
// ends in spaces (the last column is not padded, an empty last cell is dropped).
class TextTable {
public:
    enum class Align { left, right };

    struct Column {
        std::size_t min_width = 0; // the width of the usual cell: short tables keep their look
        Align align = Align::left;
        std::string separator = " "; // printed before the column (not before the first)
    };

    // `indent` starts every line.
    TextTable(std::vector<Column> columns, std::string indent = "  ");
    // The columns drawn as a row: `<` left, `>` right, then the usual width,
    // and the spaces written between two columns are their separator. So
    // ">8  <28 <0" is a right column of 8, two spaces, a left one of 28, one
    // space and a left one as wide as its longest cell. A layout that is not
    // of that form is a programming error (std::invalid_argument).
    explicit TextTable(std::string_view layout, std::string indent = "  ");

    // A row has one cell per column (missing cells are empty).
    void add_row(std::vector<std::string> cells);
    void print(std::ostream& out) const;

private:
    std::vector<Column> m_columns;
    std::string m_indent;
    std::vector<std::vector<std::string>> m_rows;
};

// The number of code points in `text`: its width on a terminal for the
// scripts ids and paths are written in.
std::size_t display_width(const std::string& text);

} // namespace cachewise::report
