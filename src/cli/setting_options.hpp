#pragma once

#include "cli/settings.hpp"

#include <string>
#include <vector>

namespace CLI { // NOLINT(readability-identifier-naming): CLI11's namespace
class App;
class Option;
} // namespace CLI

namespace cachewise::cli {

// Adds the flag of a key of the key table to `command`: its value lands
// unchecked in `flags`, for resolve_settings to check. `help` replaces the
// table's help where a command says more.
CLI::Option* add_setting_option(CLI::App& command, Key key, FlagValues& flags,
                                std::string_view help = {});

// The LOG argument of the commands that read logs (analyze, audit, chain).
void add_log_argument(CLI::App& command, std::vector<std::string>& inputs);

} // namespace cachewise::cli
