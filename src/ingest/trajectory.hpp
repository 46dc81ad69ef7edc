#pragma once

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

    explicit TrajectoryReader(OpenAIChatParser& parser) : m_parser(&parser) {}

    // Reads one trajectory document; throws FieldError for a broken one.
    void read(od::object document, const std::string& file, const Deliver& deliver);

private:
    OpenAIChatParser* m_parser;
    od::parser m_body_parser;
    od::parser m_response_parser;
    ResponseParser m_responses;
};

} // namespace cachewise::ingest
