#pragma once

#include "analysis/finding.hpp"

#include <nlohmann/json.hpp>

namespace cachewise::report {

// The one JSON shape of a finding, used by every command that reports
// findings (documented in man/cachewise.1, FINDINGS).
nlohmann::ordered_json finding_to_json(const analysis::Finding& finding);

} // namespace cachewise::report
