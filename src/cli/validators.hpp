#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace cachewise::cli {

// Option checks whose messages are words ("--block-size: must be at least 1",
// "--by: expected day, stream or model, not \"week\"") and that add nothing
// to the option's name in --help (CLI11's own append ":{a,b}" or ":POSITIVE").
CLI::Validator at_least(long long minimum);
CLI::Validator one_of(const std::vector<std::string>& values);
// A cache --policy may name: a provider or serving engine of the rules.
CLI::Validator policy_name();

// "a, b or c".
std::string in_words(const std::vector<std::string>& values);

} // namespace cachewise::cli
