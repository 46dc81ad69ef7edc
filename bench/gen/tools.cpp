#include "gen/tools.hpp"

#include "gen/json_out.hpp"
#include "gen/text.hpp"

#include <string_view>

namespace cachewise::gen {

namespace {

struct Property {
    std::string_view name;
    std::string_view type;
    bool required;
};

struct ToolSpec {
    ToolKind kind;
    std::string_view name;
    std::vector<Property> props;
};

const std::vector<ToolSpec>&
tool_specs()
{
    static const std::vector<ToolSpec> k_specs = {
        {ToolKind::bash,
         "Bash",
         {{"command", "string", true},
          {"timeout", "number", false},
          {"description", "string", false},
          {"run_in_background", "boolean", false}}},
        {ToolKind::read,
         "Read",
         {{"file_path", "string", true}, {"offset", "number", false}, {"limit", "number", false}}},
        {ToolKind::edit,
         "Edit",
         {{"file_path", "string", true},
          {"old_string", "string", true},
          {"new_string", "string", true},
          {"replace_all", "boolean", false}}},
        {ToolKind::write, "Write", {{"file_path", "string", true}, {"content", "string", true}}},
        {ToolKind::grep,
         "Grep",
         {{"pattern", "string", true},
          {"path", "string", false},
          {"glob", "string", false},
          {"output_mode", "string", false},
          {"-n", "boolean", false},
          {"head_limit", "number", false}}},
        {ToolKind::glob, "Glob", {{"pattern", "string", true}, {"path", "string", false}}},
        {ToolKind::todo, "TodoWrite", {{"todos", "array", true}}},
        {ToolKind::web_fetch, "WebFetch", {{"url", "string", true}, {"prompt", "string", true}}},
        {ToolKind::task,
         "Task",
         {{"description", "string", true},
          {"prompt", "string", true},
          {"subagent_type", "string", true}}},
        {ToolKind::ls, "LS", {{"path", "string", true}, {"ignore", "array", false}}},
    };
    return k_specs;
}

// {"name","description","input_schema"}; the descriptions are drawn in order,
// the tool's first, then each property's.
std::string
render_tool(Rng& rng, const ToolSpec& spec)
{
    std::string j = "{\"name\":";
    put_str(j, spec.name);
    j += ",\"description\":";
    put_str(j, prose(rng, rng.log_uniform(300, 2500)));
    j += ",\"input_schema\":{\"type\":\"object\",\"properties\":{";
    bool first = true;
    for (const auto& p : spec.props) {
        if (!first) {
            j += ',';
        }
        first = false;
        put_str(j, p.name);
        j += ":{\"type\":";
        put_str(j, p.type);
        if (p.type == "array") {
            j +=
                R"(,"items":{"type":"object","properties":{"content":{"type":"string","minLength":1},)"
                R"("status":{"type":"string","enum":["pending","in_progress","completed"]}},)"
                R"("required":["content","status"],"additionalProperties":false})";
        }
        j += ",\"description\":";
        put_str(j, prose(rng, rng.log_uniform(40, 300)));
        j += '}';
    }
    j += "},\"required\":[";
    first = true;
    for (const auto& p : spec.props) {
        if (p.required) {
            if (!first) {
                j += ',';
            }
            first = false;
            put_str(j, p.name);
        }
    }
    j += R"(],"additionalProperties":false,"$schema":"http://json-schema.org/draft-07/schema#"}})";
    return j;
}

} // namespace

std::vector<Tool>
make_tool_catalog(Rng& rng)
{
    std::vector<Tool> tools;
    for (const auto& spec : tool_specs()) {
        tools.push_back(Tool{spec.kind, std::string(spec.name), render_tool(rng, spec)});
    }
    return tools;
}

} // namespace cachewise::gen
