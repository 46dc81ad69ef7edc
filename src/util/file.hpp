#pragma once

#include "util/expected.hpp"

#include <filesystem>
#include <optional>
#include <string>

namespace cachewise {

// The whole file, for small inputs (rules, templates, configs, profiles);
// logs go through LineReader. The error names the file. "-" is standard
// input, read once and kept, so that a command can read it twice (lint
// parses a template, then maps its bytes to lines and columns).
Expected<std::string> read_file(const std::string& path);

// A new descriptor that reads the standard input kept by read_file("-") from
// its start, or -1 when standard input was not kept (then it is read as a
// stream, once).
int kept_stdin_fd();

// The user's cache folder: $XDG_CACHE_HOME, else $HOME/.cache. A relative
// path in either is ignored, as the XDG base directory specification says
// (it would write into whatever folder the command runs in); nothing when
// neither gives an absolute path.
std::optional<std::filesystem::path> user_cache_dir();

} // namespace cachewise
