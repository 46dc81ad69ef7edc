#pragma once

#include "model/usage.hpp"

#include <simdjson.h>

#include <optional>
#include <string>
#include <string_view>

namespace cachewise::ingest {

namespace od = simdjson::ondemand;

// What a logged response tells about its request.
struct ResponseInfo {
    std::optional<model::Usage> usage;
    std::string message_id;
    std::string model;
    std::string error; // an API error ("overloaded_error: ...") instead of a message
    bool summed_note = false;
};

// Reads Anthropic responses: a Messages API response object, an SSE stream
// (as text or as an array of event objects), or a bare usage object.
// Streams: message_start carries the first usage; every message_delta carries
// cumulative counts, so the last value of each field wins.
class AnthropicResponseParser {
public:
    // A response member of an exchange record: object, SSE text or event array.
    // Throws FieldError.
    ResponseInfo parse_value(od::value value);

    // Feeds one line of an SSE stream ("event: ...", "data: {...}", blank).
    void sse_line(std::string_view line, ResponseInfo& info);

    // Parses a `usage` object. Throws FieldError.
    static model::Usage parse_usage(od::value value);

private:
    void message_object(od::object object, ResponseInfo& info);
    void event_object(od::object object, ResponseInfo& info);
    void sse_data(std::string_view json, ResponseInfo& info);

    od::parser m_parser; // for SSE data lines, independent of the caller's document
    std::string m_data;  // a data payload spread over several lines
};

// Merges cumulative stream usage: fields present in `update` replace those in `into`.
void merge_usage(model::Usage& into, const model::Usage& update);

} // namespace cachewise::ingest
