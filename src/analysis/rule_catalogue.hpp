#pragma once

#include "analysis/finding.hpp"

#include <string_view>
#include <vector>

namespace cachewise::analysis {

// The stable rule ids shared by every command and CI gate. Ids never change
// meaning; a retired rule keeps its number. man/cachewise.1 (RULES) documents
// each with an example and the fix.
struct RuleInfo {
    std::string_view id;
    std::string_view name;
    Severity severity;
    std::string_view summary; // one line: what happened
    std::string_view fix;     // one line: what to do
};

const std::vector<RuleInfo>& rule_catalogue();

// The entry for `id`; throws std::out_of_range for an unknown id (a bug).
const RuleInfo& rule_info(std::string_view id);

// A finding with id, name and default severity filled in.
Finding make_finding(std::string_view id);

} // namespace cachewise::analysis
