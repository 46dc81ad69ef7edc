#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cachewise::ingest {

// Where the elements of a JSON array of records lie, found by their
// brackets and strings alone, without parsing them: each element is then
// parsed on its own, so that a broken one costs itself only, and an array
// that does not parse as a whole (a file cut short, a stray byte between two
// elements) keeps every element before the break.
struct ArraySpans {
    struct Element {
        std::size_t begin = 0;
        std::size_t end = 0; // the text's end when cut
        bool cut = false;    // the text ends inside it
    };
    std::vector<Element> elements;
    // Where the array breaks: neither ',' nor ']' after an element, or no
    // JSON value where one is due. The rest cannot be told apart.
    std::optional<std::size_t> stray;
    bool closed = false; // its ']' was found
    // Where text other than white space follows the ']'.
    std::optional<std::size_t> trailing;
};

// The elements from `from`, just after the array's '['.
ArraySpans split_array(std::string_view text, std::size_t from);

// Where text other than white space follows the JSON value the text starts
// with (after white space), by brackets and strings alone: JSON Lines read
// as one document. Nothing when nothing follows, or when the value is cut.
std::optional<std::size_t> text_after_value(std::string_view text);

// What the error says of text after a complete JSON value at `at`: where
// (line and column when the text is a whole document), and a hint when
// another value starts there, as in JSON Lines read as one request body.
std::string trailing_text(std::string_view text, std::size_t at);

} // namespace cachewise::ingest
