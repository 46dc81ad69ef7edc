#pragma once

#include "account/auditor.hpp"
#include "analysis/analyzer.hpp"
#include "analysis/finding.hpp"

#include <set>
#include <string>
#include <vector>

namespace cachewise::cli {

// The disabled_rules setting (--disable ID, .cachewise.json) for the
// commands that report a log: a disabled rule's findings are not reported,
// gated or counted in the table of causes; the totals (tokens lost, costs)
// stay what the log shows. Each returns how many findings it dropped.
std::size_t drop_disabled(std::vector<analysis::Finding>& findings,
                          const std::set<std::string>& off);
std::size_t drop_disabled(analysis::AnalysisResult& result, const std::set<std::string>& off);
std::size_t drop_disabled(account::AuditResult& result, const std::set<std::string>& off);

// "N findings of disabled rules (ids) not reported", on stderr unless quiet
// or none.
void note_disabled(std::size_t dropped, const std::set<std::string>& off, bool quiet);

} // namespace cachewise::cli
