// A line (or document) of JSON records: an object, or an array of them,
// and which reader an object goes to.
#include "ingest/array_spans.hpp"
#include "ingest/exchange_fields.hpp"
#include "ingest/record_reader.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace cachewise::ingest {

namespace {

// Just past the '[' that opens a document, when it is an array.
std::optional<std::size_t>
array_start(std::string_view text)
{
    const std::size_t at = text.find_first_not_of(" \t\r\n");
    if (at == std::string_view::npos || text[at] != '[') {
        return std::nullopt;
    }
    return at + 1;
}

} // namespace

void
RecordReader::json_line(std::string_view text, const std::string& file, std::uint64_t line)
{
    ++m_sink->counts.records;
    // A line's parse error is located in the line itself (parse_error).
    struct Scope {
        std::string_view& document;
        bool own;
        ~Scope()
        {
            if (own) {
                document = {};
            }
        }
    } scope{m_document, m_document.empty()};
    if (scope.own) {
        m_document = text;
    }
    guarded(file, line, [&] {
        // At most twice: once with the file's kept format, once looking afresh.
        for (bool keep : {true, false}) {
            if (parse_line(text, file, line, keep)) {
                return;
            }
        }
    });
}

// One line (or document): a record object or an array of records.
bool
RecordReader::parse_line(std::string_view text, const std::string& file, std::uint64_t line,
                         bool keep)
{
    if (array_start(text)) {
        array_records(text, file, line);
        return true;
    }
    od::document doc;
    od::json_type t{};
    if (const auto e = iterate_twice_room(m_parser, text.data(), text.size(),
                                          text.size() + LineReader::k_padding)
                           .get(doc);
        e || doc.type().get(t)) {
        throw FieldError("", fmt::format("not valid JSON: {}",
                                         simdjson::error_message(e ? e : doc.type().error())));
    }
    if (t != od::json_type::object) {
        throw FieldError("", fmt::format("expected a JSON object, found {}", describe(t)));
    }
    if (!record(doc.get_object().value(), text, text.size() + LineReader::k_padding, file, line,
                keep)) {
        return false;
    }
    // simdjson 3.0 does not flag text after a complete top-level object.
    const char* rest = nullptr;
    if (doc.current_location().get(rest) == simdjson::SUCCESS && rest != nullptr) {
        throw FieldError("", trailing_text(text, static_cast<std::size_t>(rest - text.data())));
    }
    return true;
}

// A JSON array of records, split by its brackets (ArraySpans) and each
// element parsed on a document of its own, at the line it starts on: a
// broken element costs itself only, an array cut short or broken between
// elements keeps every element before the break, and one error says where
// it breaks. Each element is looked at afresh (reset_kept).
void
RecordReader::array_records(std::string_view text, const std::string& file, std::uint64_t line)
{
    reset_kept();
    const ArraySpans spans = split_array(text, *array_start(text));
    std::size_t index = 0;
    std::size_t counted = 0; // text counted for line numbers, up to here
    const auto line_at = [&](std::size_t offset) {
        line += static_cast<std::uint64_t>(
            std::count(text.begin() + counted, text.begin() + offset, '\n'));
        counted = offset;
        return line;
    };
    for (const auto& e : spans.elements) {
        const std::uint64_t at = line_at(e.begin);
        if (e.cut) {
            error(file, at, fmt::format("[{}]", index),
                  "cut short: the document ends inside this element");
        } else {
            array_element(text.substr(e.begin, e.end - e.begin), file, at, index);
        }
        ++index;
    }
    if (spans.stray) {
        error(file, line_at(*spans.stray), fmt::format("[{}]", index),
              "not JSON here (a stray byte or a missing comma): the rest of the array is not "
              "read");
    } else if (spans.trailing) {
        error(file, line_at(*spans.trailing), "", trailing_text(text, *spans.trailing));
    } else if (!spans.closed && (spans.elements.empty() || !spans.elements.back().cut)) {
        error(file, line_at(text.size()), "",
              "cut short: the document ends before the array's ']'");
    }
    reset_kept();
}

// One element of a JSON array of records, parsed on a document of its own:
// a broken element costs that element only.
void
RecordReader::array_element(std::string_view raw, const std::string& file, std::uint64_t line,
                            std::size_t index)
{
    const simdjson::padded_string padded(raw);
    try {
        within("", index, [&] {
            od::document element;
            od::object o;
            if (const auto e = iterate_twice_room(m_element_parser, padded).get(element); e) {
                throw FieldError("", fmt::format("not valid JSON: {}", simdjson::error_message(e)));
            }
            if (element.get_object().get(o)) {
                throw FieldError("", "expected a record object");
            }
            record(o, padded, padded.size() + simdjson::SIMDJSON_PADDING, file, line, false);
        });
    } catch (const FieldError& e) {
        error(file, line, e.field(), e.reason());
    } catch (const simdjson::simdjson_error& e) {
        error(file, line, fmt::format("[{}]", index), fmt::format("not valid JSON: {}", e.what()));
    }
}

// One exchange record, bare request body, per-call gateway log (LiteLLM,
// OpenHands), trajectory document or OpenTelemetry export, as an object.
//
// Which API a body is written for is settled by a first look at the
// record's members (ApiFormatDetector). That look walks the whole record,
// so within a file the format found is kept: later records are parsed
// with it directly, and looked at again only when a member the parse
// meets, or an error, says they are written differently.
//
// Returns false, having delivered nothing, when a record parsed with the
// kept format turns out to be written differently: the caller parses the
// line again and calls it with `keep` false. The first look runs on a
// document of its own (`text` is the record's JSON, padded): a document
// that failed half way is never iterated again, simdjson does not promise
// that works.
bool
RecordReader::record(od::object object, std::string_view text, std::size_t capacity,
                     const std::string& file, std::uint64_t line, bool keep)
{
    if (keep && m_file_format) {
        return kept_record(object, file, line);
    }
    const auto format = detect_record(text, capacity);
    if (keep) {
        note_first_look(format);
    }
    if (m_shape != Shape::body) {
        other_shape(object, text, file, line);
        return true;
    }
    m_file_format = format;
    deliver(body_record(object, format, file, line, nullptr));
    return true;
}

bool
RecordReader::kept_record(od::object object, const std::string& file, std::uint64_t line)
{
    ApiFormatDetector keys;
    std::optional<model::Request> request;
    try {
        request = body_record(object, *m_file_format, file, line, &keys);
    } catch (const FieldError&) {
    }
    if (request && !keys.contradicts(*m_file_format, request->model)) {
        deliver(std::move(*request));
        return true;
    }
    reset_kept();
    return false;
}

// A record that is not a request body: an OpenTelemetry export or span, or
// a trajectory document.
void
RecordReader::other_shape(od::object object, std::string_view text, const std::string& file,
                          std::uint64_t line)
{
    const auto deliver_one = [&](model::Request&& r) { deliver(std::move(r)); };
    const auto fail = [&](const FieldError& e) { error(file, line, e.field(), e.reason()); };
    if (m_shape == Shape::otlp) {
        m_span_reader.read_export(
            object, file, line, deliver_one, [&] { ++m_sink->counts.skipped; }, fail);
    } else if (m_shape == Shape::span) {
        m_span_reader.read_span(object, file, line, deliver_one, [&] { ++m_sink->counts.skipped; });
    } else {
        m_trajectory_reader.read(object, text, file, line, deliver_one, fail);
    }
}

// The first look: the record's shape (m_shape) and, for a body, its API.
model::ApiFormat
RecordReader::detect_record(std::string_view text, std::size_t capacity)
{
    ApiFormatDetector detector;
    m_shape = Shape::body;
    od::document doc;
    od::object object;
    if (iterate_twice_room(m_detect_parser, text.data(), text.size(), capacity).get(doc) ||
        doc.get_object().get(object)) {
        return detector.decide(); // the parse reports what is wrong
    }
    for (auto field : object) {
        std::string_view key;
        od::value v;
        if (field.unescaped_key().get(key) || field.value().get(v)) {
            break; // the parse reports it
        }
        if (key == "request") {
            od::object body;
            if (v.get_object().get(body) == simdjson::SUCCESS) {
                for (auto member : body) {
                    std::string_view k;
                    od::value mv;
                    if (member.unescaped_key().get(k) || member.value().get(mv)) {
                        break;
                    }
                    const std::string owned(k);
                    detector.member(owned, mv);
                }
            }
        } else if (key == "resourceSpans") {
            m_shape = Shape::otlp;
        } else if (key == "trajectory_format") {
            m_shape = Shape::trajectory;
        } else if (key == "attributes" || key == "traceId" || key == "spanId") {
            m_shape = Shape::span;
        } else if (!is_record_key(key)) {
            const std::string owned(key);
            detector.member(owned, v);
        }
    }
    return detector.decide();
}

// A part of a file read on its own started with no kept format: the first
// look says which kept formats would have given the same (FormatTrace).
void
RecordReader::note_first_look(model::ApiFormat format)
{
    if (m_trace == nullptr || m_trace->touched) {
        return;
    }
    m_trace->touched = true;
    if (m_shape == Shape::body) {
        m_trace->need = FormatTrace::Need::format;
        m_trace->format = format;
    } else {
        m_trace->need = FormatTrace::Need::shape;
    }
}

void
RecordReader::reset_kept()
{
    m_file_format.reset();
    if (m_trace != nullptr) {
        m_trace->touched = true;
    }
}

} // namespace cachewise::ingest
