#pragma once

#include "model/request.hpp"
#include "model/segment.hpp"
#include "model/tokens.hpp"

#include <simdjson.h>

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cachewise::ingest {

namespace od = simdjson::ondemand;

// What rendering one block learned on the way, for the token estimate and
// the request model.
struct RenderStats {
    double text_tokens = 0;                // estimator over counted strings and payload JSON
    std::size_t images = 0;                // image objects anywhere inside
    std::size_t document_base64_bytes = 0; // base64 data of documents
    bool citations_enabled = false;        // {"citations": {"enabled": true}} inside
    bool has_text = false;                 // a top-level "text" member
    bool text_empty = false;               // ... and it is ""
    std::optional<model::CacheControl> cache_control;        // top-level cache_control
    std::optional<model::CacheControl> nested_cache_control; // inside (tool_result content)
    std::string type;                                        // top-level "type"
    // The first top-level member that names a block's kind where blocks have
    // no "type" (Gemini parts: "functionCall"; Bedrock blocks: "toolUse").
    std::string tag;
    bool thought = false; // Gemini: "thought": true
};

// Renders JSON the way a provider sees it, for identity hashing. Whitespace
// never matters; string escapes are normalised ("\u00e9" == "é"). Objects the
// API parses into typed fields (blocks, tools, sources) render with sorted keys,
// because their key order cannot reach the prompt; the free-form payloads that
// are rendered into the prompt as JSON text (tool input_schema, tool_use
// input) keep their key order, because there it does. A typed member set to
// null is rendered as absent, as the API reads it. `cache_control` is left
// out: moving a breakpoint does not change the prefix.
//
// The API format decides which members are payloads (OpenAI `parameters`,
// Gemini `args`, Bedrock `json`, ...) and which mark a breakpoint (Anthropic
// `cache_control`, also passed through by OpenAI-format gateways; OpenAI
// `prompt_cache_breakpoint`).
class JsonRenderer {
public:
    static constexpr int k_max_depth = 64;

    explicit JsonRenderer(const model::TokenEstimator& estimator,
                          model::ApiFormat format = model::ApiFormat::anthropic)
        : m_estimator(&estimator), m_format(format)
    {}

    // Renders one block, tool or system entry; the view is valid until the next
    // call. Top-level members named in `skip` are left out (streaming indexes,
    // server-side item ids: they never reach the prompt).
    std::string_view render_object(od::object object, RenderStats& stats,
                                   std::initializer_list<std::string_view> skip = {});

    // Canonical rendering of a parameter value (tool_choice, thinking, ...).
    std::string render_param(od::value value);

    // Renders a plain string as the text block the API turns it into:
    // {"text":"...","type":"text"}.
    std::string_view render_text_string(std::string_view text, RenderStats& stats);

private:
    struct Field {
        std::string_view key;
        std::size_t begin;
        std::size_t end;
    };
    struct ObjectState; // per-object bookkeeping while rendering

    void value(od::value v, bool payload, int depth, std::string_view via_key, RenderStats& stats,
               ObjectState* parent);
    void object(od::object o, bool payload, int depth, std::string_view via_key, RenderStats& stats,
                ObjectState* parent);
    void array(od::array a, bool payload, int depth, RenderStats& stats, ObjectState* parent);
    void sort_members(std::size_t object_begin, std::vector<Field>& fields);
    void attribute_media(ObjectState& state, bool payload, std::string_view via_key,
                         RenderStats& stats, ObjectState* parent) const;
    // Returns the unescaped string (valid for the document's lifetime).
    std::string_view string(od::value v);

    [[nodiscard]] bool is_payload_key(std::string_view key) const;
    [[nodiscard]] bool is_marker_key(std::string_view key) const;

    const model::TokenEstimator* m_estimator;
    model::ApiFormat m_format;
    // Top-level members to leave out, for the current render_object() call.
    const std::string_view* m_skip_begin = nullptr;
    const std::string_view* m_skip_end = nullptr;
    std::string m_out;
    std::string m_scratch;
    std::vector<std::vector<Field>> m_fields; // one list per depth, reused
};

// Parses {"type": "ephemeral", "ttl": "5m"|"1h"}; null gives none. Throws FieldError.
std::optional<model::CacheControl> parse_cache_control(od::value value);

// Parses an OpenAI {"mode": "explicit"} breakpoint or a Bedrock
// {"type": "default", "ttl": "5m"|"1h"} cache point. Throws FieldError.
model::CacheControl parse_breakpoint_marker(od::value value);

// Writes `text` as a JSON string with canonical escapes.
void append_json_string(std::string& out, std::string_view text);

// True when a JSON string token (quotes included) is written the way
// append_json_string writes its value, so that it is its own rendering.
bool is_canonical_token(std::string_view token);

} // namespace cachewise::ingest
