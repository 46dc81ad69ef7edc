#pragma once

#include "report/format.hpp"

#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace cachewise::report {

// `cachewise config show`: the config file read and every setting of it,
// with where its value came from.
struct ConfigView {
    struct Row {
        std::string origin; // "default", the config file, "environment", "command line"
        std::string key;
        std::string value;
    };
    std::optional<std::string> file;
    std::vector<Row> rows;
};

// Text: "(origin) key = value", one per line, after "config file: ...".
// JSON: {"schema_version", "command": "config", "file", "settings": [{"key",
// "value", "origin"}]}. Values are redacted in both.
void print_config(const ConfigView& view, Format format, std::ostream& out);

} // namespace cachewise::report
