#pragma once

#include "ingest/field_error.hpp"
#include "ingest/openai_chat_request.hpp"
#include "ingest/response_parser.hpp"
#include "model/request.hpp"

#include <simdjson.h>

#include <functional>
#include <string>

namespace cachewise::ingest {

// Agent trajectories that keep the whole chat history with each call's raw
// response (mini-swe-agent: {"trajectory_format": "mini-swe-agent-1",
// "messages": [...], "info": {...}}). Every assistant message that carries
// extra.response is one API request: the messages before it, answered by
// that response. The history is append-only, so the requests share growing
// prefixes.
class TrajectoryReader {
public:
    using Deliver = std::function<void(model::Request&&)>;
    using Report = std::function<void(const FieldError&)>;

    explicit TrajectoryReader(OpenAIChatParser& parser) : m_parser(&parser) {}

    // Reads one trajectory document; throws FieldError for a broken one. A
    // broken message or call is reported and costs itself only: a message
    // that cannot be read is left out of the history of the calls after it.
    // `text` is the document's JSON, which starts at `line` of `file`: each
    // call's request points at the line of its assistant message.
    void read(od::object document, std::string_view text, const std::string& file,
              std::uint64_t line, const Deliver& deliver, const Report& report);

private:
    void check_readable(const std::string& message);
    model::Request call(const std::string& file, std::uint64_t line, const std::string& body,
                        std::size_t index, const std::string& response, const std::string& model,
                        const std::string& instance);

    OpenAIChatParser* m_parser;
    od::parser m_body_parser;
    od::parser m_response_parser;
    ResponseParser m_responses;
};

} // namespace cachewise::ingest
