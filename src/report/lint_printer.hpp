#pragma once

#include "advise/lint.hpp"
#include "report/exact_counts.hpp"
#include "report/format.hpp"

#include <cstdint>
#include <optional>
#include <ostream>

namespace cachewise::report {

// What `cachewise lint` found, with what the gate counts.
struct LintReport {
    const advise::LintResult& result;
    // With --baseline: the findings it does not hold, named after the count.
    const std::vector<analysis::Finding>* new_since_baseline = nullptr;
    std::optional<ExactCountSummary> exact;
};

// Text or JSON (SARIF and GitHub annotations: findings_printer).
void print_lint(const LintReport& report, Format format, std::ostream& out);

} // namespace cachewise::report
