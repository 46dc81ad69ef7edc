#include "analysis/rule_catalogue.hpp"

#include <stdexcept>
#include <string>

namespace cachewise::analysis {

std::string_view
to_string(Severity severity)
{
    switch (severity) {
    case Severity::info:
        return "info";
    case Severity::warning:
        return "warning";
    case Severity::error:
        return "error";
    }
    return "?";
}

const std::vector<RuleInfo>&
rule_catalogue()
{
    static const std::vector<RuleInfo> rules = {
        {"CW001", "prefix-changed", Severity::warning,
         "content inside the earlier request's cached prefix changed",
         "keep everything before the last breakpoint byte-identical; append new content at the "
         "end instead of editing earlier turns"},
        {"CW002", "tools-changed", Severity::warning,
         "tool definitions were added, removed or changed, which invalidates every cache level",
         "keep the tool list fixed for a session; load optional tools once, at the start"},
        {"CW003", "tools-reordered", Severity::warning,
         "the same tools were sent in a different order",
         "sort the tool list by name before sending it"},
        {"CW004", "serialization-drift", Severity::warning,
         "the changed segments are equal as JSON: only key order or number formatting differs",
         "serialise with a stable key order (insertion-ordered maps, sorted keys) and stable "
         "number formatting"},
        {"CW005", "scope-changed", Severity::warning,
         "a request parameter that scopes the cache changed (model, tool_choice, thinking, "
         "images, speed, web search or citations)",
         "keep cache-scoping parameters fixed within a session, or accept the cache level they "
         "invalidate"},
        {"CW010", "dynamic-field", Severity::warning,
         "a value that changes per request (date, time, id, counter, random token) sits inside "
         "the cached prefix",
         "move dynamic values after the last breakpoint, e.g. into the latest user message"},
    };
    return rules;
}

const RuleInfo&
rule_info(std::string_view id)
{
    for (const auto& r : rule_catalogue()) {
        if (r.id == id) {
            return r;
        }
    }
    throw std::out_of_range("unknown rule id " + std::string(id));
}

Finding
make_finding(std::string_view id)
{
    const RuleInfo& info = rule_info(id);
    Finding f;
    f.rule = std::string(info.id);
    f.name = std::string(info.name);
    f.severity = info.severity;
    return f;
}

} // namespace cachewise::analysis
