#pragma once

#include "analysis/finding.hpp"

#include <optional>
#include <string>
#include <vector>

namespace cachewise::cli {

// The CI gate shared by lint, analyze and audit.
struct Gate {
    // "error", "warning", "info", "none", or a comma-separated list of rule ids.
    std::string fail_on = "none";
    std::optional<std::string> baseline;  // a previous --format json result
    std::optional<double> max_regression; // hit-rate points (audit)
};

// The findings that count: all of them, or without a baseline's. Throws Error
// for a baseline that cannot be read.
std::vector<analysis::Finding> new_findings(const std::vector<analysis::Finding>& findings,
                                            const Gate& gate);

// 1 when a counted finding is at or above --fail-on, or the hit rate fell
// more than --max-regression points below the baseline's; 0 otherwise.
// Says why on standard error.
int gate_status(const std::vector<analysis::Finding>& counted, const Gate& gate,
                std::optional<double> hit_rate = std::nullopt);

// Validates a --fail-on value; throws Error.
void check_fail_on(const std::string& value);

} // namespace cachewise::cli
