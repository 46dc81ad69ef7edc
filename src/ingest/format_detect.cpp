// Which format a file is, from its first lines.
#include "ingest/claude_code.hpp"
#include "ingest/file_kind.hpp"
#include "ingest/record_reader.hpp"

namespace cachewise::ingest {

// Picks a format from the first non-blank line (then rewinds to it). A
// first line that is not a whole JSON value decides nothing alone: it may
// open a document written over many lines, or be a broken record of a JSONL
// file, which a record on one of the next lines shows.
InputFormat
RecordReader::detect(LineReader& reader, LoadCounts& counts)
{
    m_not_json.clear();
    m_binary = false;
    LineReader::Line line;
    bool marked = false;
    bool after_comma = false; // the last line looked at ends in ','
    int looked = 0;
    for (;;) {
        auto more = reader.next(line);
        if (!more || !*more || line.too_long) {
            if (marked) {
                reader.rewind();
                return InputFormat::request;
            }
            if (more && *more) {
                reader.unread();
            }
            return InputFormat::exchange; // empty or unreadable: reported by the reader
        }
        const auto start = line.text.find_first_not_of(" \t");
        if (start == std::string_view::npos) {
            counts.skipped += marked ? 0 : 1;
            continue;
        }
        const std::string_view text = line.text.substr(start);
        if (marked) {
            // A record after a line that ends in ',' is an element of an
            // array written one element a line: the document goes on.
            if (start == 0 && text.front() == '{' && !after_comma && whole_record(line.text)) {
                reader.rewind();
                return looks_like_claude_code(text) ? InputFormat::claude_code
                                                    : InputFormat::exchange;
            }
            if (++looked >= k_lines_to_decide) {
                reader.rewind();
                return InputFormat::request;
            }
            const auto last = text.find_last_not_of(" \t\r");
            after_comma = last != std::string_view::npos && text[last] == ',';
            continue;
        }
        if (text.rfind("event:", 0) == 0 || text.rfind("data:", 0) == 0 || text.front() == ':') {
            reader.unread();
            return InputFormat::sse;
        }
        if (text.rfind("interactions:", 0) == 0) {
            reader.unread();
            return InputFormat::vcr;
        }
        if (text.front() != '{' && text.front() != '[') {
            // Not JSON at all: one error for the file, not one per line.
            reader.unread();
            m_not_json = non_json_reason(text);
            m_binary = looks_binary(text);
            return InputFormat::exchange;
        }
        if (whole_value(line.text)) {
            reader.unread();
            return text.front() == '{' && looks_like_claude_code(text) ? InputFormat::claude_code
                                                                       : InputFormat::exchange;
        }
        if (text.find_first_not_of(" \t\r", 1) == std::string_view::npos && text.front() == '[') {
            // "[" alone on its line: an array written over many lines,
            // whatever its later lines hold (a stray one included).
            reader.mark_last_line();
            reader.rewind();
            return InputFormat::request;
        }
        reader.mark_last_line();
        marked = true;
    }
}

// One complete JSON value on this line?
bool
RecordReader::whole_value(std::string_view text)
{
    od::document doc;
    std::string_view raw;
    return m_parser.iterate(text.data(), text.size(), text.size() + LineReader::k_padding)
                   .get(doc) == simdjson::SUCCESS &&
           doc.raw_json().get(raw) == simdjson::SUCCESS;
}

// A record of a JSONL file: an object closed on its own line (inside a
// document written over many lines, objects are indented or followed by a
// comma).
bool
RecordReader::whole_record(std::string_view text)
{
    const auto last = text.find_last_not_of(" \t");
    return last != std::string_view::npos && text[last] == '}' && whole_value(text);
}

} // namespace cachewise::ingest
