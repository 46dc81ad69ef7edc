#include "analysis/miss_diagnosis.hpp"

#include "analysis/rule_catalogue.hpp"

#include <fmt/format.h>

namespace cachewise::analysis {

namespace {

std::string
level_cause(const std::string& path)
{
    if (path.rfind("tools", 0) == 0 || path.rfind("toolConfig", 0) == 0) {
        return "tools_changed";
    }
    if (path.rfind("system", 0) == 0) {
        return "system_changed";
    }
    return "messages_changed";
}

} // namespace

void
DiagnosisCollector::note(const model::Request& request)
{
    if (request.provider_miss_reason) {
        m_reasons[request.id] = {request.provider_miss_reason->empty()
                                     ? std::string("none")
                                     : *request.provider_miss_reason,
                                 request.file, request.line};
    }
}

std::string
own_cause(const RequestOutcome& outcome, const AnalysisResult& result)
{
    using Status = RequestOutcome::Status;
    switch (outcome.status) {
    case Status::cold:
        return "cold";
    case Status::not_logged:
        return "not logged";
    case Status::extends:
    case Status::uncached:
    case Status::truncated:
        return "none";
    case Status::branched:
        return "messages_changed";
    case Status::diverged:
        break;
    }
    if (!outcome.finding || *outcome.finding >= result.findings.size()) {
        return "messages_changed";
    }
    const Finding& f = result.findings[*outcome.finding];
    if (f.rule == rule::k_tools_changed || f.rule == rule::k_tools_reordered) {
        return "tools_changed";
    }
    if (f.rule == rule::k_scope_changed && f.kind == "model") {
        return "model_changed";
    }
    return level_cause(f.location.path);
}

DiagnosisSummary
DiagnosisCollector::compare(const AnalysisResult& result) const
{
    DiagnosisSummary out;
    for (const auto& outcome : result.outcomes) {
        const auto it = m_reasons.find(outcome.id);
        if (it == m_reasons.end()) {
            continue;
        }
        ++out.with_diagnosis;
        DiagnosisEntry e{outcome.id, it->second.reason, own_cause(outcome, result),
                         DiagnosisEntry::Verdict::not_comparable};
        const bool provider_unsure =
            e.provider_reason == "previous_message_not_found" || e.provider_reason == "unavailable";
        const bool own_unsure = e.own_cause == "cold" || e.own_cause == "not logged";
        if (provider_unsure || own_unsure) {
            ++out.not_comparable;
        } else if (e.provider_reason == e.own_cause) {
            e.verdict = DiagnosisEntry::Verdict::agree;
            ++out.agree;
        } else {
            e.verdict = DiagnosisEntry::Verdict::disagree;
            ++out.disagree;
            Finding f = make_finding(rule::k_diagnosis_disagrees);
            f.request = outcome.id;
            f.partner = outcome.partner;
            f.stream = outcome.stream;
            f.kind = e.provider_reason;
            f.location.path = "diagnostics.cache_miss_reason";
            f.file = it->second.file;
            f.line = it->second.line;
            f.message = fmt::format(
                "the provider's cache_miss_reason is {}, cachewise found {}{}: either the "
                "simulation or the provider's cache behaves otherwise than documented",
                e.provider_reason, e.own_cause,
                outcome.partner.empty() ? "" : fmt::format(" against {}", outcome.partner));
            out.findings.push_back(std::move(f));
        }
        out.entries.push_back(std::move(e));
    }
    return out;
}

} // namespace cachewise::analysis
