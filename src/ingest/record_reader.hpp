#pragma once

#include "ingest/anthropic_request.hpp"
#include "ingest/api_format.hpp"
#include "ingest/bedrock_request.hpp"
#include "ingest/field_error.hpp"
#include "ingest/gemini_request.hpp"
#include "ingest/loader.hpp"
#include "ingest/ondemand.hpp"
#include "ingest/openai_chat_request.hpp"
#include "ingest/openai_responses_request.hpp"
#include "ingest/otel_spans.hpp"
#include "ingest/record_sink.hpp"
#include "ingest/response_parser.hpp"
#include "ingest/trajectory.hpp"
#include "model/tokens.hpp"
#include "util/line_reader.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>

namespace cachewise::ingest {

// Within a file, the API found for one record is kept for the next (see
// RecordReader::record). A part of a file read on its own starts with no
// kept format; this says for which kept formats that gives the same records
// as reading on from the part before, and what is kept at its end.
struct FormatTrace {
    // What the first look at a record in the part found: nothing looked
    // at, a body of `format`, or a record of another shape (OpenTelemetry,
    // trajectory), which a kept format would have sent down another path.
    enum class Need { nothing, format, shape };
    Need need = Need::nothing;
    model::ApiFormat format{};
    bool touched = false;                // the kept format was set or reset
    std::optional<model::ApiFormat> end; // the kept format at the end, when touched

    [[nodiscard]] bool holds_after(const std::optional<model::ApiFormat>& inherited) const
    {
        return need == Need::nothing || !inherited ||
               (need == Need::format && *inherited == format);
    }
    [[nodiscard]] std::optional<model::ApiFormat>
    end_after(const std::optional<model::ApiFormat>& inherited) const
    {
        return touched ? end : inherited;
    }
};

// Reads files, or parts of JSONL files, into a RecordSink: one per thread,
// with its own parsers. Every step that depends on records of other files
// (or of other parts) is left to the Delivery.
class RecordReader {
public:
    RecordReader(const ruleset::Rules& rules, const LoadOptions& options);
    RecordReader(const RecordReader&) = delete;
    RecordReader& operator=(const RecordReader&) = delete;

    // A whole file: format detected (unless forced), read by its format's reader.
    void file(const std::string& path, RecordSink& sink);
    // A file already opened (the first part of a file read in parts starts
    // here): format detected or forced, then read to the end of `lines`.
    void opened(LineReader& lines, RecordSink& sink, FormatTrace* trace = nullptr);
    // A later part of an exchange JSONL file, read with `kept` as the format
    // kept from the records before it.
    void exchange_part(LineReader& lines, std::optional<model::ApiFormat> kept, RecordSink& sink,
                       FormatTrace* trace = nullptr);

    // The format a file is read as, from its first lines (then rewound);
    // blank lines before the first record are counted as skipped. A file
    // that is not JSON at all is read as exchange and not_json() says what
    // it looks like.
    InputFormat detect(LineReader& reader, LoadCounts& counts);
    [[nodiscard]] const std::string& not_json() const { return m_not_json; }

    // Called every few thousand lines with the bytes read of the current
    // file, for a progress line.
    void set_tick(std::function<void(std::uint64_t)> tick) { m_tick = std::move(tick); }
    // Where rendered segment bytes go (LoadOptions::text_store).
    void set_text_store(model::TextStore* store);

private:
    enum class LineLoop { end, failed, stopped };
    template <typename F> LineLoop each_line(LineReader& reader, LineReader::Line& line, F&& f);

    // file_readers.cpp: one reader per input format.
    void exchange_file(LineReader& reader, const std::string& file);
    bool undecided_line(const LineReader::Line& line, std::vector<std::uint64_t>& leading,
                        const std::string& file);
    // The rest of a file read whole, or nullopt once its error is reported.
    std::optional<std::string_view> rest_of(LineReader& reader, const std::string& file);
    void document_file(LineReader& reader, const std::string& file);
    void sse_file(LineReader& reader, const std::string& file);
    void claude_code_file(LineReader& reader, const std::string& file);
    void cassette_file(LineReader& reader, const std::string& file);

    // format_detect.cpp
    bool whole_value(std::string_view text);
    bool whole_record(std::string_view text);

    // json_record.cpp: a line or document of JSON records.
    void json_line(std::string_view text, const std::string& file, std::uint64_t line);
    bool parse_line(std::string_view text, const std::string& file, std::uint64_t line, bool keep);
    void array_records(std::string_view text, const std::string& file, std::uint64_t line);
    void array_element(std::string_view raw, const std::string& file, std::uint64_t line,
                       std::size_t index);
    bool record(od::object object, std::string_view text, std::size_t capacity,
                const std::string& file, std::uint64_t line, bool keep);
    bool kept_record(od::object object, const std::string& file, std::uint64_t line);
    void other_shape(od::object object, std::string_view text, const std::string& file,
                     std::uint64_t line);
    model::ApiFormat detect_record(std::string_view text, std::size_t capacity);
    void note_first_look(model::ApiFormat format);
    void reset_kept();

    // exchange_record.cpp: one exchange record or bare body.
    model::Request body_record(od::object& object, model::ApiFormat format, const std::string& file,
                               std::uint64_t line, ApiFormatDetector* keys);
    void apply_response(const ResponseInfo& response, std::optional<double> cost,
                        std::string& provider, model::Request& request);
    void after_finish(const ResponseInfo& response, BodyParser& reader, model::Request& request);

    BodyParser& parser_for(model::ApiFormat format);
    void deliver(model::Request&& request);
    void error(const std::string& file, std::uint64_t line, std::string_view field,
               std::string_view reason);
    // error(), or, inside a document that is not valid JSON, where it breaks.
    void parse_error(const std::string& file, std::uint64_t line, std::string_view field,
                     std::string_view reason);
    template <typename F> void guarded(const std::string& file, std::uint64_t line, F&& f);

    const ruleset::Rules& m_rules;
    const LoadOptions& m_options;
    model::TokenEstimator m_estimator;
    AnthropicRequestParser m_request_parser;
    OpenAIChatParser m_chat_parser;
    OpenAIResponsesParser m_responses_parser;
    GeminiRequestParser m_gemini_parser;
    BedrockConverseParser m_bedrock_parser;
    TrajectoryReader m_trajectory_reader;
    OtelSpanReader m_span_reader;
    ResponseParser m_response_parser;
    od::parser m_parser;
    od::parser m_detect_parser;  // the first look at a record, on a document of its own
    od::parser m_element_parser; // one element of an array of records
    // Claude Code request ids of the files this reader read before: a
    // resumed session's history is not built again (the Delivery decides
    // across readers).
    std::unordered_set<std::string> m_seen_request_ids;
    RecordSink* m_sink = nullptr;
    // The whole text of the JSON document being read (document_file), so
    // that a parse error is reported at its line and column; empty for lines.
    std::string_view m_document;
    FormatTrace* m_trace = nullptr;
    std::function<void(std::uint64_t)> m_tick;
    // What the records of the current file are (see record()).
    enum class Shape { body, otlp, span, trajectory } m_shape = Shape::body;
    std::optional<model::ApiFormat> m_file_format;
    std::string m_not_json; // what the current file looks like when it is not JSON
    bool m_binary = false;  // and it is binary data: no later line is looked at
    // Leading lines that are not JSON after which a file is "not JSON" as a whole.
    static constexpr std::size_t k_not_json_lines = 20;
    // How many lines after a broken first one are looked at for a record.
    static constexpr int k_lines_to_decide = 8;
};

// Runs one record's parse, turning every failure into a reported error.
template <typename F>
void
RecordReader::guarded(const std::string& file, std::uint64_t line, F&& f)
{
    try {
        f();
    } catch (const FieldError& e) {
        parse_error(file, line, e.field(), e.reason());
    } catch (const simdjson::simdjson_error& e) {
        parse_error(file, line, "", fmt::format("not valid JSON: {}", e.what()));
    }
}

// The one line loop of every line-based format: `f` gets each line and
// returns false to stop; a failed read is an error of the whole file.
template <typename F>
RecordReader::LineLoop
RecordReader::each_line(LineReader& reader, LineReader::Line& line, F&& f)
{
    for (;;) {
        auto more = reader.next(line);
        if (!more) {
            error(reader.path(), 0, "", more.error());
            return LineLoop::failed;
        }
        if (!*more) {
            return LineLoop::end;
        }
        if (m_tick && (line.number & 0xfff) == 0) {
            m_tick(reader.bytes_read());
        }
        if (!f(line)) {
            return LineLoop::stopped;
        }
    }
}

} // namespace cachewise::ingest
