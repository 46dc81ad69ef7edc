#pragma once

#include <algorithm>
#include <span>
#include <string>
#include <string_view>

namespace cachewise {

// Text from a log made safe to print on one line of ours: control characters
// (C0, DEL, C1) and bidirectional overrides become \n, \t, \r or \u001b-style
// escapes, so that log text can neither start a line of its own (a GitHub
// workflow command such as "::error ...") nor drive the terminal; a leading
// "::" becomes "\u003a:", as the text may be printed first on a line.
std::string escape_control(std::string_view text);

// escape_control(redact(text)): what every printed piece of log text goes
// through.
std::string safe_text(std::string_view text);

// safe_text of each line, the line ends kept: for multi-line output that
// quotes an input, such as a diff.
std::string safe_lines(std::string_view text);

// Text in a cell of a Markdown table: a '|' would end the cell (GitHub's
// tables take "\|", inside code spans too).
std::string markdown_cell(std::string_view text);

// A file path as a URI reference (RFC 3986, SARIF's artifactLocation.uri):
// every byte but the unreserved characters, '/' and the sub-delimiters
// percent-encoded, ':' too (a relative path's first segment is not a
// scheme): "a b#1.jsonl" becomes "a%20b%231.jsonl".
std::string uri_path(std::string_view path);

// A byte and what an escaper writes in its place.
struct ByteEscape {
    char byte;
    std::string_view with;
};

// `text` with each byte that `escapes` names written as its replacement and
// every other byte as `other(out, byte)` appends it: the loop every escaper
// (HTML, workflow commands, excerpts) shares, its table its own.
template <class Other>
std::string
escape_bytes(std::string_view text, std::span<const ByteEscape> escapes, Other other)
{
    std::string out;
    out.reserve(text.size());
    for (const char c : text) {
        const auto found = std::ranges::find(escapes, c, &ByteEscape::byte);
        if (found != escapes.end()) {
            out += found->with;
        } else {
            other(out, c);
        }
    }
    return out;
}

// JSON's two-character escape of a byte (RFC 8259: \" \\ \n \r \t \b \f),
// empty for a byte that has none (other control bytes take \u00XX).
constexpr std::string_view
json_short_escape(unsigned char c)
{
    switch (c) {
    case '"':
        return "\\\"";
    case '\\':
        return "\\\\";
    case '\n':
        return "\\n";
    case '\r':
        return "\\r";
    case '\t':
        return "\\t";
    case '\b':
        return "\\b";
    case '\f':
        return "\\f";
    default:
        return {};
    }
}

} // namespace cachewise
