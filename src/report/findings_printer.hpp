#pragma once

#include "analysis/finding.hpp"

#include <ostream>
#include <string>
#include <vector>

namespace cachewise::report {

// SARIF 2.1.0: one run, the rule catalogue as driver rules (id, name, help,
// default level), each finding a result with its physical location (1-based
// line and column when known) and its JSON path as a logical location.
void print_sarif(const std::vector<analysis::Finding>& findings, std::ostream& out);

// GitHub Actions workflow commands: ::warning file=F,line=L,col=C,title=T::message
// GitHub workflow annotations; files are named relative to `base` (the
// checkout, $GITHUB_WORKSPACE) when they lie inside it. A last plain line
// counts them, and the `known` findings left out because --baseline holds
// them.
void print_github(const std::vector<analysis::Finding>& findings, std::ostream& out,
                  const std::string& base = "", std::size_t known = 0);

// A stable identity for a finding, independent of request ids and line
// numbers that shift between runs: rule, path, kind, the changed text (not
// the value of a log's dynamic field, new on every run) and, for a
// template's finding (no stream), its file; a log's is the same in a
// rotated or renamed log. Baselines compare these.
std::string fingerprint(const analysis::Finding& finding);
// The same with the marked value always in: a finding of the very same value
// (matched first against a baseline, so a value that repeats stays known).
std::string value_fingerprint(const analysis::Finding& finding);

} // namespace cachewise::report
