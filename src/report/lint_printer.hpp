#pragma once

#include "advise/lint.hpp"
#include "report/format.hpp"

#include <cstdint>
#include <optional>
#include <ostream>

namespace cachewise::report {

// How lint's exact counts went (--exact-tokens).
struct ExactCountSummary {
    std::uint64_t prefixes = 0;
    std::uint64_t calls = 0;
    std::uint64_t cached = 0;
};

// What `cachewise lint` found, with what the gate counts.
struct LintReport {
    const advise::LintResult& result;
    std::optional<std::size_t> new_since_baseline; // with --baseline
    std::optional<ExactCountSummary> exact;
};

// Text or JSON (SARIF and GitHub annotations: findings_printer).
void print_lint(const LintReport& report, Format format, std::ostream& out);

// "exact counts: 1 prefix, 2 calls to count tokens, 0 from the cache".
std::string exact_count_text(const ExactCountSummary& exact);

} // namespace cachewise::report
