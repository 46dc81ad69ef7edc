#pragma once

#include "account/auditor.hpp"
#include "account/expected_basis.hpp"
#include "ingest/loader.hpp"
#include "report/format.hpp"
#include "report/html_data.hpp"

#include <optional>
#include <ostream>
#include <string>

namespace cachewise::report {

// With --baseline: what the gates judged, so that a CI job reading the
// JSON sees why it failed, not only stderr.
struct GateSummary {
    std::string baseline;                  // its path
    std::size_t new_findings = 0;          // findings the baseline does not hold
    std::optional<double> hit_rate_before; // the baseline's token-weighted hit rate
    std::optional<double> max_regression;  // --max-regression, in points
    bool regression_failed = false;        // the hit rate fell more than that
};

struct AuditPrintOptions {
    Format format = Format::text;
    bool details = false;
    std::optional<std::string> by;            // "day", "stream" or "model"
    const ruleset::Rules* rules = nullptr;    // html: each provider's TTL, for idle gaps
    std::optional<PlacementReplay> placement; // html: suggest's placement replayed
    account::ExpectedBasis basis;             // what the expected split rests on
    std::optional<GateSummary> gate;          // json: with --baseline
};

// Prints the result of `cachewise audit`.
void print_audit(const account::AuditResult& result, const ingest::LoadSummary& load,
                 const AuditPrintOptions& options, std::ostream& out);

} // namespace cachewise::report
