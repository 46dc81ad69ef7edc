#pragma once

#include "util/expected.hpp"

#include <string>

namespace cachewise {

// The whole file, for small inputs (rules, templates, configs, profiles);
// logs go through LineReader. The error names the file.
Expected<std::string> read_file(const std::string& path);

} // namespace cachewise
