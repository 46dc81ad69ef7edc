// One reader per input format, each over the one line loop (each_line).
#include "ingest/array_spans.hpp"
#include "ingest/claude_code.hpp"
#include "ingest/inputs.hpp"
#include "ingest/printable.hpp"
#include "ingest/record_reader.hpp"
#include "ingest/vcr_cassette.hpp"
#include "util/format.hpp"
#include "util/source_map.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <simdjson.h>

#include <algorithm>
#include <optional>

namespace cachewise::ingest {

// JSONL records (or a JSON array of them on one line). A file that does not
// start like JSON is one error for the file, unless JSON lines follow within
// the first lines (a log whose first line was cut by rotation): then each
// leading line is an error. Binary data is one error, whatever bytes open
// its later "lines" (a '{' in random bytes starts no record).
void
RecordReader::exchange_file(LineReader& reader, const std::string& file)
{
    if (m_binary) {
        ++m_sink->counts.records;
        error(file, 0, "", m_not_json);
        return;
    }
    bool undecided = !m_not_json.empty();
    std::vector<std::uint64_t> leading;
    LineReader::Line line;
    const auto end = each_line(reader, line, [&](const LineReader::Line& l) {
        if (undecided && leading.size() == k_not_json_lines) {
            return false;
        }
        if (l.too_long) {
            ++m_sink->counts.records;
            error(file, l.number, "",
                  fmt::format("record longer than {} bytes, skipped",
                              group_count(m_options.max_record_bytes)));
            return true;
        }
        if (l.text.find_first_not_of(" \t") == std::string_view::npos) {
            ++m_sink->counts.skipped;
            return true;
        }
        if (undecided) {
            if (!undecided_line(l, leading, file)) {
                return true;
            }
            undecided = false;
        }
        json_line(l.text, file, l.number);
        return true;
    });
    if (end != LineLoop::failed && undecided) {
        ++m_sink->counts.records;
        error(file, 0, "", m_not_json);
    }
}

// A line of a file that did not start like JSON: true when it starts a JSON
// record, after which the lines held back are errors of their own.
bool
RecordReader::undecided_line(const LineReader::Line& line, std::vector<std::uint64_t>& leading,
                             const std::string& file)
{
    const auto start = line.text.find_first_not_of(" \t\xEF\xBB\xBF");
    if (start == std::string_view::npos || (line.text[start] != '{' && line.text[start] != '[')) {
        leading.push_back(line.number);
        return false;
    }
    for (const auto n : leading) {
        ++m_sink->counts.records;
        error(file, n, "", "not JSON: the line does not start with { or [");
    }
    return true;
}

std::optional<std::string_view>
RecordReader::rest_of(LineReader& reader, const std::string& file)
{
    auto text = reader.rest();
    if (!text) {
        error(file, 0, "", text.error());
        return std::nullopt;
    }
    return *text;
}

namespace {

struct SyntaxError {
    std::uint64_t line = 1;
    std::string reason;
};

// Where a JSON document whose parse failed breaks, for a message that names
// its line and column: simdjson tells only that it does, nlohmann where.
// Nothing when the document is valid JSON (the failure was another), or
// when only text after a complete value is wrong (json_line says what
// follows it).
// How syntax_error's reason starts for a document of one line.
constexpr std::string_view k_line_one = "not valid JSON at line 1, ";

std::optional<SyntaxError>
syntax_error(std::string_view text)
{
    thread_local simdjson::dom::parser parser;
    simdjson::dom::element root;
    if (parser.parse(text.data(), text.size(), true).get(root) == simdjson::SUCCESS) {
        return std::nullopt;
    }
    try {
        const auto parsed = nlohmann::json::parse(text);
        (void)parsed;
        return std::nullopt;
    } catch (const nlohmann::json::parse_error& e) {
        const std::string what = e.what();
        if (what.find("expected end of input") != std::string::npos) {
            return std::nullopt;
        }
        const std::string_view before = text.substr(0, std::min(text.size(), e.byte));
        const auto lines =
            static_cast<std::uint64_t>(std::count(before.begin(), before.end(), '\n'));
        // nlohmann quotes the text it last read: never printed (it may be
        // long, or hold a key).
        const auto at = what.find("parse error at ");
        std::string reason = at == std::string::npos ? what : what.substr(at + 15);
        reason = reason.substr(0, reason.find("; last read:"));
        return SyntaxError{lines + 1, fmt::format("not valid JSON at {}", reason)};
    } catch (const nlohmann::json::exception&) {
        return std::nullopt; // not a syntax error (a number out of range): json_line says
    }
}

// The line of a document (a template, one request body) where the value at
// `field` sits, or the object that lacks it: a type error is named where the
// user has to fix it, not at the document's first line.
std::optional<std::uint64_t>
line_of(std::string_view document, std::string_view field)
{
    // A document of one line is named at its line already.
    if (field.empty() || document.find('\n') == std::string_view::npos) {
        return std::nullopt;
    }
    const auto map = SourceMap::build(document);
    if (!map) {
        return std::nullopt;
    }
    std::string path(field);
    while (true) {
        if (const auto* span = map->find(path)) {
            return map->line_column(span->begin).line;
        }
        const auto cut = path.find_last_of(".[");
        if (cut == std::string::npos || cut == 0) {
            return std::nullopt;
        }
        path.resize(cut);
    }
}

} // namespace

void
RecordReader::document_file(LineReader& reader, const std::string& file)
{
    const auto text = rest_of(reader, file);
    if (!text) {
        return;
    }
    // Cleared however json_line ends: a later file's errors must not read it.
    struct Scope {
        std::string_view& document;
        ~Scope() { document = {}; }
    } scope{m_document};
    m_document = *text;
    // JSON Lines read as one body: the first line's request alone would be
    // taken and the others lost, so the file is one broken record.
    const auto start = text->find_first_not_of(" \t\r\n");
    if (start != std::string_view::npos && (*text)[start] == '{') {
        if (const auto after = text_after_value(*text)) {
            ++m_sink->counts.records;
            const std::string_view before = text->substr(0, *after);
            error(file,
                  1 + static_cast<std::uint64_t>(std::count(before.begin(), before.end(), '\n')),
                  "", trailing_text(*text, *after));
            return;
        }
    }
    json_line(*text, file, 1);
}

void
RecordReader::parse_error(const std::string& file, std::uint64_t line, std::string_view field,
                          std::string_view reason)
{
    // `line` is where the document (or the line) starts in the file.
    if (const auto broken = m_document.empty() ? std::nullopt : syntax_error(m_document)) {
        std::string where = broken->reason;
        if (m_document.find('\n') == std::string_view::npos && where.starts_with(k_line_one)) {
            where = "not valid JSON at " + where.substr(k_line_one.size()); // one line: its column
        }
        error(file, line + broken->line - 1, "", where);
        return;
    }
    error(file, m_document.empty() ? line : line + line_of(m_document, field).value_or(1) - 1,
          field, reason);
}

// Only a response was logged: the request is known by its usage alone.
void
RecordReader::sse_file(LineReader& reader, const std::string& file)
{
    ResponseInfo info;
    LineReader::Line line;
    std::uint64_t first_line = 0;
    ++m_sink->counts.records;
    const auto end = each_line(reader, line, [&](const LineReader::Line& l) {
        if (first_line == 0 && !l.text.empty()) {
            first_line = l.number;
        }
        guarded(file, l.number, [&] { m_response_parser.sse_line(l.text, info); });
        return true;
    });
    if (end == LineLoop::failed) {
        return;
    }
    guarded(file, line.number, [&] { m_response_parser.sse_line("", info); });
    if (!info.usage && info.error.empty()) {
        error(file, 0, "", "no message_start or message_delta usage in this SSE stream");
        return;
    }
    model::Request request;
    request.file = file;
    request.line = first_line;
    request.id = fmt::format("{}:{}", shown_path(file), first_line);
    request.model = info.model;
    request.usage = info.usage;
    if (request.usage) {
        request.usage->origin = model::Usage::Origin::sse;
    }
    request.prompt_logged = false;
    request.notes.emplace_back(
        "only the response (an SSE stream) was logged; the prompt is unknown");
    if (!info.error.empty()) {
        request.notes.push_back(std::string(model::k_error_response_note) + info.error);
    }
    deliver(std::move(request));
}

// A transcript's requests are rebuilt once the whole file is read.
void
RecordReader::claude_code_file(LineReader& reader, const std::string& file)
{
    ClaudeCodeReader cc(m_request_parser, m_rules, file);
    LineReader::Line line;
    each_line(reader, line, [&](const LineReader::Line& l) {
        if (l.too_long) {
            error(file, l.number, "",
                  fmt::format("line longer than {} bytes, skipped",
                              group_count(m_options.max_record_bytes)));
            return true;
        }
        try {
            const auto kind = cc.line(m_parser, l.text, l.number);
            ++(kind == ClaudeCodeReader::LineKind::message ? m_sink->counts.records
                                                           : m_sink->counts.skipped);
        } catch (const FieldError& e) {
            ++m_sink->counts.records;
            error(file, l.number, e.field(), e.reason());
        } catch (const simdjson::simdjson_error& e) {
            ++m_sink->counts.records;
            error(file, l.number, "", fmt::format("not valid JSON: {}", e.what()));
        }
        return true;
    });
    cc.finish(
        [&](model::Request&& r) {
            std::string id = r.id;
            make_printable(r);
            m_sink->transcript_request(std::move(id), std::move(r));
        },
        m_seen_request_ids, m_sink->counts.duplicates);
    for (auto& call : cc.take_progress()) {
        m_sink->progress_call(std::move(call));
    }
}

// A VCR cassette: each recorded model call is read as an exchange record.
void
RecordReader::cassette_file(LineReader& reader, const std::string& file)
{
    const auto text = rest_of(reader, file);
    if (!text) {
        return;
    }
    const auto problem = CassetteReader::read(
        std::string(*text),
        [&](std::string_view json, std::uint64_t line) {
            std::string padded(json);
            padded.append(LineReader::k_padding, ' ');
            m_file_format.reset(); // one cassette may call several APIs
            json_line(std::string_view(padded.data(), json.size()), file, line);
        },
        [&] { ++m_sink->counts.skipped; },
        [&](std::uint64_t line, const std::string& reason) {
            ++m_sink->counts.records;
            error(file, line, "", reason);
        });
    if (!problem.empty()) {
        ++m_sink->counts.records;
        error(file, 0, "", problem);
    }
}

} // namespace cachewise::ingest
