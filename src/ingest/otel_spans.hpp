#pragma once

#include "ingest/field_error.hpp"
#include "ingest/openai_chat_request.hpp"
#include "model/request.hpp"

#include <simdjson.h>

#include <functional>
#include <string>

namespace cachewise::ingest {

// OpenTelemetry GenAI spans: an OTLP/JSON export ({"resourceSpans": [...]})
// or one span object per line, with attributes as OTLP key/value lists or as
// a plain object. A span with gen_ai.* usage or prompt attributes is one
// request:
//   model      gen_ai.request.model (gen_ai.response.model is the served one)
//   provider   gen_ai.provider.name or gen_ai.system
//   usage      gen_ai.usage.input_tokens (inclusive of cached tokens, per the
//              GenAI semantic conventions), gen_ai.usage.output_tokens,
//              gen_ai.usage.cache_read.input_tokens,
//              gen_ai.usage.cache_creation.input_tokens, and older spellings
//   prompt     gen_ai.system_instructions, gen_ai.input.messages,
//              gen_ai.tool.definitions (JSON strings), or the older
//              gen_ai.prompt.<i>.role / .content attributes
//   stream     gen_ai.conversation.id, else the trace id
// The prompt is rebuilt as a Chat Completions body and read by that parser.
class OtelSpanReader {
public:
    using Deliver = std::function<void(model::Request&&)>;
    using Skip = std::function<void()>;
    using Fail = std::function<void(const FieldError&)>;

    explicit OtelSpanReader(OpenAIChatParser& parser) : m_parser(&parser) {}

    // An OTLP/JSON export; spans that are not GenAI calls are passed to
    // `skip`, a broken span to `fail` (the others are still read).
    void read_export(od::object document, const std::string& file, std::uint64_t line,
                     const Deliver& deliver, const Skip& skip, const Fail& fail);
    // One span object.
    void read_span(od::object span, const std::string& file, std::uint64_t line,
                   const Deliver& deliver, const Skip& skip);

private:
    OpenAIChatParser* m_parser;
    od::parser m_body_parser;
};

} // namespace cachewise::ingest
