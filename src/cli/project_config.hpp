#pragma once

#include <filesystem>
#include <optional>

namespace cachewise::cli {

struct Settings;

// The nearest .cachewise.json from `start` upwards, if any.
std::optional<std::filesystem::path> find_project_config(const std::filesystem::path& start);

// Reads the nearest .cachewise.json (if any) into `settings` through the key
// table: each key's type and check, origin Origin::config_file. Throws Error
// naming the file and the key of a bad value.
void read_project_config(Settings& settings, const std::filesystem::path& start);

} // namespace cachewise::cli
