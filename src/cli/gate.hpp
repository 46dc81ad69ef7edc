#pragma once

#include "analysis/finding.hpp"
#include "util/expected.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cachewise::cli {

// --fail-on, parsed once: a level, or a list of rule ids.
struct FailOn {
    enum class Level { none, info, warning, error, ids };
    Level level = Level::none;
    std::vector<std::string> ids; // with Level::ids
    std::string text = "none";    // as written, for messages

    // "error", "warning", "info", "none", or comma-separated rule ids of the
    // catalogue; the reason otherwise.
    static Expected<FailOn> parse(std::string_view text);
};

// A previous --format json result, read and checked once.
struct Baseline {
    std::string path;
    std::string command;                     // the command that wrote it
    std::vector<analysis::Finding> findings; // rule, file, kind, location path, excerpt
    std::optional<double> hit_rate;          // totals.hit_rate (audit)
};

// Reads a baseline written by `command` (any command when empty); throws
// Error for another command's result, and naming the path of a member of the wrong
// type ("--baseline FILE: findings[0].rule: expected a string, found object").
Baseline read_baseline(const std::string& path, std::string_view command);

// The CI gate shared by lint, analyze, audit and probe.
struct Gate {
    FailOn fail_on;
    const Baseline* baseline = nullptr;
    std::optional<double> max_regression; // hit-rate points (audit)
};

// The findings that count: all of them, or without the baseline's.
// --max-regression needs the baseline's hit rate: an Error (exit 2) before
// any output when it has none.
void check_regression_gate(const Gate& gate);

std::vector<analysis::Finding> new_findings(const std::vector<analysis::Finding>& findings,
                                            const Gate& gate);

// Why --max-regression fails (the hit rate fell more points than it
// allows below the baseline's), or nothing.
std::optional<std::string> regression_message(const Gate& gate, std::optional<double> hit_rate);

// 1 when a counted finding is at or above --fail-on, or the hit rate fell
// more than --max-regression points below the baseline's; 0 otherwise.
// Says why on standard error.
int gate_status(const std::vector<analysis::Finding>& counted, const Gate& gate,
                std::optional<double> hit_rate = std::nullopt);

} // namespace cachewise::cli
