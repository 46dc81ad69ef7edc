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
    std::string route; // the upstream a gateway chose (OpenRouter "provider")
    std::string error; // an API error ("overloaded_error: ...") instead of a message
    // The generated message as the next turn would send it back, as raw JSON:
    // OpenAI chat choices[0].message (an object) or the Responses `output`
    // (an array of items); empty for streams and other formats.
    std::string message_json;
    std::string cache_name;          // Gemini cachedContents.create: "cachedContents/..."
    std::string cache_expire;        // ... its "expireTime"
    bool responses_api = false;      // an OpenAI Responses object ("object": "response")
    std::optional<double> created;   // epoch seconds ("created", "created_at"): about the start
    std::optional<double> completed; // epoch seconds ("completed_at", Responses API)
    // Anthropic cache diagnostics: diagnostics.cache_miss_reason ("" when the
    // response carries diagnostics with a null reason: no miss); nothing when
    // the response has no diagnostics.
    std::optional<std::string> cache_miss_reason;
};

// Reads responses of every API format cachewise knows: Anthropic Messages,
// OpenAI Chat Completions and Responses (DeepSeek and gateways alike), Gemini
// generateContent and Bedrock Converse; as an object, as an SSE stream (text
// or an array of event objects), or as a bare usage object.
//
// Streams: Anthropic's message_start carries the first usage and every
// message_delta cumulative counts; OpenAI sends usage on the last chunk,
// Responses in response.completed, Gemini in every chunk. In every case the
// last value of each field wins.
class ResponseParser {
public:
    // A response member of an exchange record: object, SSE text or event array.
    // Throws FieldError.
    ResponseInfo parse_value(od::value value);

    // Feeds one line of an SSE stream ("event: ...", "data: {...}", blank).
    void sse_line(std::string_view line, ResponseInfo& info);

    // Parses a usage object of any schema (Anthropic, OpenAI, DeepSeek,
    // Bedrock, Gemini usageMetadata, LiteLLM's mix); `responses_api` says an
    // input_tokens count is the inclusive total. Throws FieldError.
    static model::Usage parse_usage(od::value value, bool responses_api = false);

private:
    static std::size_t sum_iterations(od::value value, model::Usage& sum);
    void message_object(od::object object, ResponseInfo& info);
    void event_object(od::object object, ResponseInfo& info);
    void sse_data(std::string_view json, ResponseInfo& info);

    od::parser m_parser; // for SSE data lines, independent of the caller's document
    std::string m_data;  // a data payload spread over several lines
};

// Merges cumulative stream usage: fields present in `update` replace those in `into`.
void merge_usage(model::Usage& into, const model::Usage& update);

} // namespace cachewise::ingest
