#include "cli/disabled_rules.hpp"

#include "util/format.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <optional>

namespace cachewise::cli {

namespace {

// Keeps the findings of enabled rules, in order; returns where each old
// index went (nothing: dropped), for lists that point into them.
std::vector<std::optional<std::size_t>>
keep_enabled(std::vector<analysis::Finding>& findings, const std::set<std::string>& off)
{
    std::vector<std::optional<std::size_t>> moved(findings.size());
    std::size_t kept = 0;
    for (std::size_t i = 0; i < findings.size(); ++i) {
        if (off.contains(findings[i].rule)) {
            continue;
        }
        moved[i] = kept;
        if (kept != i) {
            findings[kept] = std::move(findings[i]);
        }
        ++kept;
    }
    findings.resize(kept);
    return moved;
}

} // namespace

std::size_t
drop_disabled(std::vector<analysis::Finding>& findings, const std::set<std::string>& off)
{
    const std::size_t before = findings.size();
    (void)keep_enabled(findings, off);
    return before - findings.size();
}

std::size_t
drop_disabled(analysis::AnalysisResult& result, const std::set<std::string>& off)
{
    if (off.empty()) {
        return 0;
    }
    const std::size_t before = result.findings.size();
    const auto moved = keep_enabled(result.findings, off);
    for (auto& outcome : result.outcomes) {
        if (outcome.finding) {
            outcome.finding = moved[*outcome.finding];
        }
    }
    std::erase_if(result.causes, [&](const auto& c) { return off.contains(c.rule); });
    return before - result.findings.size() + drop_disabled(result.dynamic_fields, off) +
           drop_disabled(result.latent, off);
}

std::size_t
drop_disabled(account::AuditResult& result, const std::set<std::string>& off)
{
    if (off.empty()) {
        return 0;
    }
    const std::size_t before = result.findings.size();
    const auto moved = keep_enabled(result.findings, off);
    for (auto& request : result.requests) {
        std::vector<std::size_t> kept;
        for (const auto i : request.findings) {
            if (moved[i]) {
                kept.push_back(*moved[i]);
            }
        }
        request.findings = std::move(kept);
    }
    // The audit reports its own findings; its analysis's are not printed again.
    (void)drop_disabled(result.analysis, off);
    return before - result.findings.size();
}

void
note_disabled(std::size_t dropped, const std::set<std::string>& off, bool quiet)
{
    if (dropped == 0 || quiet) {
        return;
    }
    fmt::print(stderr, "cachewise: note: {} of disabled rules ({}) not reported\n",
               count_noun(dropped, "finding"), fmt::join(off, ", "));
}

} // namespace cachewise::cli
