#pragma once

#include "ingest/loader_types.hpp"

#include <string>
#include <vector>

namespace cachewise::ingest {

// The files `inputs` expand to: files as given, directories walked for
// *.json, *.jsonl, *.ndjson, *.sse, *.yaml and *.yml in name order. Throws
// Error for a path that does not exist. `notes` (when given) receives, per
// folder, how many files matched and how many others were left aside. A
// folder inside that cannot be listed goes to `unreadable` when given, else
// it is an Error too.
std::vector<std::string> expand_inputs(const std::vector<std::string>& inputs,
                                       std::vector<std::string>* notes = nullptr,
                                       std::vector<InputError>* unreadable = nullptr);

// A path as ids show it: relative to the current folder when it lies inside
// it (a request without an id of its own is "file:line").
std::string shown_path(const std::string& file);

// The extensions a folder walk reads, for messages: "*.json, *.jsonl, ...".
std::string walked_extensions();

// A cassette by its name (*.yaml, *.yml): read as one, whatever it starts with.
bool is_yaml_name(const std::string& path);

} // namespace cachewise::ingest
