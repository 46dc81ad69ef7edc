#include "ingest/record_reader.hpp"

#include "ingest/inputs.hpp"
#include "ingest/printable.hpp"
#include "ingest/since_filter.hpp"

#include <array>
#include <initializer_list>

namespace cachewise::ingest {

RecordReader::RecordReader(const ruleset::Rules& rules, const LoadOptions& options)
    : m_rules(rules), m_options(options), m_estimator(rules.tokens),
      m_request_parser(rules, m_estimator), m_chat_parser(rules, m_estimator),
      m_responses_parser(rules, m_estimator), m_gemini_parser(rules, m_estimator),
      m_bedrock_parser(rules, m_estimator), m_trajectory_reader(m_chat_parser),
      m_span_reader(m_chat_parser)
{
    for (BodyParser* p :
         std::initializer_list<BodyParser*>{&m_request_parser, &m_chat_parser, &m_responses_parser,
                                            &m_gemini_parser, &m_bedrock_parser}) {
        p->set_model_override(m_options.model_override);
    }
    set_text_store(m_options.text_store);
}

void
RecordReader::set_text_store(model::TextStore* store)
{
    for (BodyParser* p :
         std::initializer_list<BodyParser*>{&m_request_parser, &m_chat_parser, &m_responses_parser,
                                            &m_gemini_parser, &m_bedrock_parser}) {
        p->set_text_store(store);
    }
}

BodyParser&
RecordReader::parser_for(model::ApiFormat format)
{
    switch (format) {
    case model::ApiFormat::anthropic:
        return m_request_parser;
    case model::ApiFormat::openai_chat:
        return m_chat_parser;
    case model::ApiFormat::openai_responses:
        return m_responses_parser;
    case model::ApiFormat::gemini:
        return m_gemini_parser;
    case model::ApiFormat::bedrock_converse:
        return m_bedrock_parser;
    }
    return m_request_parser;
}

void
RecordReader::deliver(model::Request&& request)
{
    // A request that reads a Gemini explicit cache is finished in log order
    // by the Delivery, and made printable there.
    if (request.cached_content.empty()) {
        make_printable(request);
    }
    m_sink->request(std::move(request));
}

void
RecordReader::error(const std::string& file, std::uint64_t line, std::string_view field,
                    std::string_view reason)
{
    m_sink->error(file, line, field, reason);
}

void
RecordReader::file(const std::string& path, RecordSink& sink)
{
    m_sink = &sink;
    if (m_options.since && written_before(path, *m_options.since)) {
        ++sink.counts.files_skipped;
        return;
    }
    ++sink.counts.files;
    auto lines = LineReader::open(path, m_options.max_record_bytes);
    if (!lines) {
        // The error names the file; the skip line names it already.
        std::string_view reason = lines.error();
        if (reason.substr(0, path.size() + 2) == path + ": ") {
            reason.remove_prefix(path.size() + 2);
        }
        error(path, 0, "", std::string(reason));
        return;
    }
    opened(**lines, sink);
}

void
RecordReader::opened(LineReader& lines, RecordSink& sink, FormatTrace* trace)
{
    using Read = void (RecordReader::*)(LineReader&, const std::string&);
    struct FormatReader {
        InputFormat format;
        Read read;
    };
    static constexpr std::array<FormatReader, 6> k_readers = {{
        {InputFormat::request, &RecordReader::document_file},
        {InputFormat::sse, &RecordReader::sse_file},
        {InputFormat::claude_code, &RecordReader::claude_code_file},
        {InputFormat::vcr, &RecordReader::cassette_file},
        {InputFormat::exchange, &RecordReader::exchange_file},
        {InputFormat::auto_detect, &RecordReader::exchange_file},
    }};
    m_sink = &sink;
    m_trace = trace;
    m_file_format.reset();
    m_not_json.clear();
    m_binary = false;
    const std::string path = lines.path();
    const InputFormat format = m_options.format != InputFormat::auto_detect ? m_options.format
                               : is_yaml_name(path)                         ? InputFormat::vcr
                                                    : detect(lines, sink.counts);
    for (const auto& reader : k_readers) {
        if (reader.format == format) {
            (this->*reader.read)(lines, path);
            break;
        }
    }
    sink.counts.bytes += lines.bytes_read();
    if (trace != nullptr) {
        trace->end = m_file_format;
    }
    m_trace = nullptr;
}

void
RecordReader::exchange_part(LineReader& lines, std::optional<model::ApiFormat> kept,
                            RecordSink& sink, FormatTrace* trace)
{
    m_sink = &sink;
    m_trace = trace;
    m_file_format = kept;
    m_not_json.clear();
    m_binary = false;
    exchange_file(lines, lines.path());
    sink.counts.bytes += lines.bytes_read();
    if (trace != nullptr) {
        trace->end = m_file_format;
    }
    m_trace = nullptr;
}

} // namespace cachewise::ingest
