#pragma once

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

// "(origin) key = value", one per line, after "config file: ...".
void print_config(const ConfigView& view, std::ostream& out);

} // namespace cachewise::report
