#pragma once

#include "ingest/loader.hpp"
#include "model/request.hpp"

#include <nlohmann/json.hpp>

namespace cachewise::report {

using Json = nlohmann::ordered_json;

// The JSON shapes shared by every command's output (documented in
// man/cachewise.1, JSON OUTPUT). Key order is fixed so outputs diff cleanly.
Json usage_to_json(const model::Usage& usage);
Json request_to_json(const model::Request& request);
Json error_to_json(const ingest::InputError& error);
Json summary_to_json(const ingest::LoadSummary& summary);

// A command's JSON document, opened with its schema_version and command.
Json json_document(std::string_view command, int schema_version = 1);
// Adds "errors" (the broken records) and "load" (the summary) to a command's
// JSON document.
void add_load_json(Json& document, const ingest::LoadSummary& summary);

} // namespace cachewise::report
