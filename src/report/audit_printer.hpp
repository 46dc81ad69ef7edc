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

struct AuditPrintOptions {
    Format format = Format::text;
    bool details = false;
    std::optional<std::string> by;            // "day", "stream" or "model"
    const ruleset::Rules* rules = nullptr;    // html: each provider's TTL, for idle gaps
    std::optional<PlacementReplay> placement; // html: suggest's placement replayed
    account::ExpectedBasis basis;             // what the expected split rests on
};

// Prints the result of `cachewise audit`.
void print_audit(const account::AuditResult& result, const ingest::LoadSummary& load,
                 const AuditPrintOptions& options, std::ostream& out);

} // namespace cachewise::report
