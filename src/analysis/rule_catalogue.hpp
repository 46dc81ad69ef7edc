#pragma once

#include "analysis/finding.hpp"
#include "model/request.hpp"

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace cachewise::analysis {

// The ids as constants, named after their rules, for the code that makes or
// tests findings: a typo is a compile error, not a finding nobody can
// match. rule_catalogue() gives each its name, severity, summary and fix;
// tests/unit/test_analysis_rule_catalogue.cpp checks that every place that
// lists the rules (man page, SARIF, README, --help) agrees with it.
namespace rule {
inline constexpr std::string_view k_prefix_changed = "CW001";
inline constexpr std::string_view k_tools_changed = "CW002";
inline constexpr std::string_view k_tools_reordered = "CW003";
inline constexpr std::string_view k_serialization_drift = "CW004";
inline constexpr std::string_view k_scope_changed = "CW005";
inline constexpr std::string_view k_dynamic_field = "CW010";
inline constexpr std::string_view k_no_breakpoint = "CW011";
inline constexpr std::string_view k_below_minimum = "CW012";
inline constexpr std::string_view k_too_many_breakpoints = "CW013";
inline constexpr std::string_view k_ttl_order = "CW014";
inline constexpr std::string_view k_lookback_exceeded = "CW015";
inline constexpr std::string_view k_cache_control_not_allowed = "CW016";
inline constexpr std::string_view k_dynamic_before_stable = "CW017";
inline constexpr std::string_view k_unwritten_breakpoints = "CW018";
inline constexpr std::string_view k_unknown_type = "CW019";
inline constexpr std::string_view k_ttl_expired = "CW020";
inline constexpr std::string_view k_concurrent = "CW021";
inline constexpr std::string_view k_unexplained_miss = "CW022";
inline constexpr std::string_view k_write_without_read = "CW023";
inline constexpr std::string_view k_ttl_advice = "CW024";
inline constexpr std::string_view k_warmed_elsewhere = "CW025";
inline constexpr std::string_view k_usage_inconsistent = "CW030";
inline constexpr std::string_view k_usage_mismatch = "CW031";
inline constexpr std::string_view k_diagnosis_disagrees = "CW032";
inline constexpr std::string_view k_secret_in_prompt = "CW040";

// CW010's kind for a break inside a credential (a rotated key): its fix is
// CW040's, to take the key out, not to move it.
inline constexpr std::string_view k_credential_kind = "credential";
} // namespace rule

// The stable rule ids shared by every command and CI gate. Ids never change
// meaning; a retired rule keeps its number. man/cachewise.1 (RULE IDS) documents
// each with an example and the fix.
struct RuleInfo {
    std::string_view id;
    std::string_view name;
    Severity severity;
    std::string_view summary; // one line: what happened
    std::string_view fix;     // one line: what to do
};

std::span<const RuleInfo> rule_catalogue();

// A rule id as the catalogue writes it, from any case ("cw010" is CW010);
// other text is returned as it is.
std::string canonical_rule_id(std::string id);

// The entry for `id`; throws std::out_of_range for an unknown id (a bug).
const RuleInfo& rule_info(std::string_view id);

// A finding with id, name and default severity filled in.
Finding make_finding(std::string_view id);
// The same, about `request`: its id, stream and place in its log.
Finding make_finding(std::string_view id, const model::Request& request);
// Gives `f` the rule `id` (id, name and default severity), keeping what it
// says about where and what.
void set_rule(Finding& f, std::string_view id);

} // namespace cachewise::analysis
