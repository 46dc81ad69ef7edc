#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace cachewise::cli {

// A value and where it came from: "default", the config file, or
// "command line". Precedence: defaults < .cachewise.json < flags.
template <typename T> struct Setting {
    T value{};
    std::string origin = "default";
};

// .cachewise.json, found in the working directory or the nearest parent.
struct ProjectConfig {
    std::optional<std::filesystem::path> file;
    Setting<std::string> model;                       // empty: the request's own
    Setting<std::string> fail_on{"error"};            // lint's gate (analyze/audit: none)
    Setting<std::vector<std::string>> placeholders;   // empty: the built-in syntaxes
    Setting<std::vector<std::string>> dynamic_fields; // extra pattern files
    Setting<std::vector<std::string>> disabled_rules;
    Setting<std::string> window{"1h"};
    Setting<double> max_regression{0};
    Setting<double> latency{2.0};
};

// Reads the nearest .cachewise.json from `start` upwards (or nothing).
// Throws Error naming the file and key of a bad value.
ProjectConfig load_project_config(const std::filesystem::path& start);

// Every value with its origin, one per line.
std::string describe(const ProjectConfig& config);

} // namespace cachewise::cli
