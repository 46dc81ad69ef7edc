#pragma once

#include "gen/rng.hpp"

#include <string>
#include <vector>

namespace cachewise::gen {

// The tools a session offers the model, after Claude Code's own set.
enum class ToolKind { bash, read, edit, write, grep, glob, todo, web_fetch, task, ls };

struct Tool {
    ToolKind kind;
    std::string name;
    std::string json; // the whole definition, rendered
};

// All ten tools in catalog order, each rendered as an Anthropic tool
// definition ({"name","description","input_schema"}) with random prose for the
// descriptions.
std::vector<Tool> make_tool_catalog(Rng& rng);

} // namespace cachewise::gen
