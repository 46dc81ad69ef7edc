#pragma once

#include "ingest/loader.hpp"
#include "model/request.hpp"
#include "report/json_writer.hpp"

#include <nlohmann/json.hpp>

#include <functional>
#include <ostream>

namespace cachewise::report {

using Json = nlohmann::ordered_json;

// The JSON shapes shared by every command's output (documented in
// man/cachewise.1, JSON OUTPUT). Key order is fixed so outputs diff cleanly.
Json usage_to_json(const model::Usage& usage);
Json request_to_json(const model::Request& request);
Json error_to_json(const ingest::InputError& error);
Json summary_to_json(const ingest::LoadSummary& summary);

// `value`, or null where it is empty (a string, a list) or 0 (a line or
// column number): what was not known is null, never "" or 0.
template <typename T>
Json
or_null(const T& value)
{
    if constexpr (requires { value.empty(); }) {
        return value.empty() ? Json(nullptr) : Json(value);
    } else {
        return value == 0 ? Json(nullptr) : Json(value);
    }
}

// A JSON array of to_json(item) for each item.
template <typename Items, typename ToJson>
Json
json_array(const Items& items, ToJson to_json)
{
    Json out = Json::array();
    for (const auto& item : items) {
        out.push_back(to_json(item));
    }
    return out;
}

// Writes `document` as dump(2) would, with its empty top-level array
// "requests" filled by row(0) .. row(count - 1), one row at a time, each
// written by a JsonWriter: a DOM of every per-request row (and its text)
// would hold several times the rows in memory at once, and rows grow with
// the log.
void dump_with_rows(const Json& document, std::size_t count,
                    const std::function<void(std::size_t, JsonWriter&)>& row, std::ostream& out);

// A command's JSON document, opened with its schema_version and command.
Json json_document(std::string_view command, int schema_version = 1);
// The schema version of a command's JSON result (audit 2: "cold" became
// "new_or_expired"; the others 1).
int json_schema_version(std::string_view command);
// Adds "errors" (the broken records) and "load" (the summary) to a command's
// JSON document.
void add_load_json(Json& document, const ingest::LoadSummary& summary);

} // namespace cachewise::report
