#include "cli/project_config.hpp"

#include "util/error.hpp"
#include "util/escape.hpp"
#include "util/file.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

namespace cachewise::cli {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::optional<fs::path>
find_config(fs::path dir)
{
    std::error_code ec;
    dir = fs::absolute(dir, ec);
    while (!dir.empty()) {
        const fs::path candidate = dir / ".cachewise.json";
        if (fs::is_regular_file(candidate, ec)) {
            return candidate;
        }
        if (dir == dir.parent_path()) {
            break;
        }
        dir = dir.parent_path();
    }
    return std::nullopt;
}

} // namespace

ProjectConfig
load_project_config(const fs::path& start)
{
    ProjectConfig c;
    c.file = find_config(start);
    if (!c.file) {
        return c;
    }
    const std::string name = c.file->string();
    const json j = json::parse(value_or_throw(read_file(name), ""), nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
        throw Error(fmt::format("{}: not a JSON object", name));
    }
    const auto bad = [&](const std::string& path, const char* expected, const json& found) {
        throw Error(
            fmt::format("{}: {}: expected {}, found {}", name, path, expected, found.type_name()));
    };
    for (const auto& [key, value] : j.items()) {
        if (key == "model" || key == "fail_on" || key == "window") {
            if (!value.is_string()) {
                bad(key, "a string", value);
            }
            auto& s = key == "model" ? c.model : key == "fail_on" ? c.fail_on : c.window;
            s = {value.get<std::string>(), name};
        } else if (key == "placeholders" || key == "dynamic_fields" || key == "disabled_rules") {
            if (!value.is_array()) {
                bad(key, "an array of strings", value);
            }
            std::vector<std::string> items;
            for (std::size_t i = 0; i < value.size(); ++i) {
                const auto& v = value[i];
                if (!v.is_string()) {
                    bad(fmt::format("{}[{}]", key, i), "a string", v);
                }
                std::string item = v.get<std::string>();
                if (key == "dynamic_fields" && fs::path(item).is_relative()) {
                    item = (c.file->parent_path() / item).string(); // relative to the config file
                }
                items.push_back(std::move(item));
            }
            auto& s = key == "placeholders"     ? c.placeholders
                      : key == "dynamic_fields" ? c.dynamic_fields
                                                : c.disabled_rules;
            s = {std::move(items), name};
        } else if (key == "max_regression" || key == "latency") {
            if (!value.is_number() || value.get<double>() < 0) {
                bad(key, "a number >= 0", value);
            }
            auto& s = key == "max_regression" ? c.max_regression : c.latency;
            s = {value.get<double>(), name};
        } else if (key != "$schema" && key != "about") {
            throw Error(fmt::format(
                "{}: {}: unknown setting (model, fail_on, placeholders, dynamic_fields, "
                "disabled_rules, window, max_regression, latency)",
                name, key));
        }
    }
    return c;
}

std::string
describe(const ProjectConfig& c)
{
    std::string out = fmt::format("config file: {}\n", c.file ? c.file->string() : "(none found)");
    const auto line = [&](const char* key, const std::string& value, const std::string& origin) {
        // A value may hold anything, a pasted key included: shown safe.
        out += fmt::format("({}) {} = {}\n", origin, key, safe_text(value));
    };
    line("model", c.model.value.empty() ? "(the request's own)" : c.model.value, c.model.origin);
    line("fail_on", c.fail_on.value, c.fail_on.origin);
    line("placeholders",
         c.placeholders.value.empty() ? "{{name}}, ${name}, {name}"
                                      : fmt::format("{}", fmt::join(c.placeholders.value, ", ")),
         c.placeholders.origin);
    line("dynamic_fields",
         c.dynamic_fields.value.empty()
             ? "(none)"
             : fmt::format("{}", fmt::join(c.dynamic_fields.value, ", ")),
         c.dynamic_fields.origin);
    line("disabled_rules",
         c.disabled_rules.value.empty()
             ? "(none)"
             : fmt::format("{}", fmt::join(c.disabled_rules.value, ", ")),
         c.disabled_rules.origin);
    line("window", c.window.value, c.window.origin);
    line("max_regression", fmt::format("{}", c.max_regression.value), c.max_regression.origin);
    line("latency", fmt::format("{}", c.latency.value), c.latency.origin);
    return out;
}

} // namespace cachewise::cli
