#include "cli/project_config.hpp"

#include "cli/settings.hpp"
#include "util/error.hpp"
#include "util/file.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <string_view>

namespace cachewise::cli {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// The file's JSON, or an error at its line and column. nlohmann quotes the
// text it last read: not printed (it may be long, or hold a key).
json
parse_config(const std::string& name, const std::string& text)
{
    try {
        return json::parse(text);
    } catch (const json::parse_error& e) {
        const std::string_view before =
            std::string_view(text).substr(0, std::min(text.size(), e.byte));
        const auto line_start = before.rfind('\n');
        const std::size_t line =
            static_cast<std::size_t>(std::count(before.begin(), before.end(), '\n')) + 1;
        const std::size_t column =
            before.size() - (line_start == std::string_view::npos ? 0 : line_start + 1);
        // "[json.exception.parse_error.101] parse error at line 3, column 1:
        // syntax error …; last read: …": the words after the place.
        std::string reason = e.what();
        reason = reason.substr(0, reason.find("; last read:"));
        if (const auto colon = reason.find(": "); colon != std::string::npos) {
            reason = reason.substr(colon + 2);
        }
        throw Error(fmt::format("{}:{}:{}: not valid JSON: {}", name, line, column, reason));
    }
}

// A JSON value in the shape its key takes, or the error naming what was found.
RawValue
raw_value(const KeyInfo& key, const json& value, const std::string& file)
{
    const auto bad = [&](const std::string& path, const char* expected, const json& found) {
        return Error(
            fmt::format("{}: {}: expected {}, found {}", file, path, expected, found.type_name()));
    };
    switch (key.type) {
    case ValueType::string:
        if (!value.is_string()) {
            throw bad(std::string(key.name), "a string", value);
        }
        return value.get<std::string>();
    case ValueType::number:
        if (!value.is_number()) {
            throw bad(std::string(key.name), "a number >= 0", value);
        }
        return value.get<double>();
    case ValueType::string_list:
        break;
    }
    if (!value.is_array()) {
        throw bad(std::string(key.name), "an array of strings", value);
    }
    std::vector<std::string> items;
    for (std::size_t i = 0; i < value.size(); ++i) {
        if (!value[i].is_string()) {
            throw bad(fmt::format("{}[{}]", key.name, i), "a string", value[i]);
        }
        items.push_back(value[i].get<std::string>());
    }
    return items;
}

std::string
config_key_names()
{
    std::string names;
    for (const auto& key : key_table()) {
        if (key.in_config_file) {
            names += fmt::format("{}{}", names.empty() ? "" : ", ", key.name);
        }
    }
    return names;
}

} // namespace

std::optional<fs::path>
find_project_config(const fs::path& start)
{
    std::error_code ec;
    fs::path dir = fs::absolute(start, ec);
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

void
read_project_config(Settings& settings, const fs::path& start)
{
    settings.config_file = find_project_config(start);
    if (!settings.config_file) {
        return;
    }
    const std::string name = settings.config_file->string();
    const json j = parse_config(name, value_or_throw(read_file(name), ""));
    if (!j.is_object()) {
        throw Error(
            fmt::format("{}: expected a JSON object of settings, found {}", name, j.type_name()));
    }
    for (const auto& [key, value] : j.items()) {
        if (key == "$schema" || key == "about") {
            continue;
        }
        const KeyInfo* info = find_key(key);
        if (info == nullptr) {
            throw Error(fmt::format("{}: {}: unknown setting ({})", name, key, config_key_names()));
        }
        set_value(settings, *info, raw_value(*info, value, name), Origin::config_file);
    }
}

} // namespace cachewise::cli
