#include "report/diagnosis_printer.hpp"

#include "report/finding_json.hpp"
#include "util/enum_names.hpp"
#include "util/format.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <sstream>

namespace cachewise::report {

namespace {

using Json = nlohmann::ordered_json;
using Verdict = analysis::DiagnosisEntry::Verdict;

constexpr auto k_verdict_names = util::names_of<Verdict>({"agree", "disagree", "not comparable"});

std::string_view
verdict_text(Verdict v)
{
    return k_verdict_names[v];
}

Json
summary_json(const analysis::DiagnosisSummary& s)
{
    Json entries = Json::array();
    for (const auto& e : s.entries) {
        entries.push_back({{"request", e.request},
                           {"provider_reason", e.provider_reason},
                           {"cachewise_cause", e.own_cause},
                           {"verdict", verdict_text(e.verdict)}});
    }
    Json findings = Json::array();
    for (const auto& f : s.findings) {
        findings.push_back(finding_to_json(f));
    }
    return {{"requests", s.with_diagnosis},       {"agree", s.agree},   {"disagree", s.disagree},
            {"not_comparable", s.not_comparable}, {"entries", entries}, {"findings", findings}};
}

void
section(const analysis::DiagnosisSummary& s, bool markdown, std::ostream& out)
{
    out << (markdown ? "\n### Provider's diagnosis\n\n" : "\nProvider's diagnosis\n");
    const auto n = [](std::size_t v) { return group_count(v); };
    out << fmt::format("{}{} Anthropic's cache_miss_reason · {} agree with "
                       "cachewise · {} disagree · {} not comparable\n",
                       markdown ? "" : "  ",
                       s.with_diagnosis == 1 ? "1 request carries"
                                             : count_noun(s.with_diagnosis, "request") + " carry",
                       n(s.agree), n(s.disagree), n(s.not_comparable));
    for (const auto& e : s.entries) {
        out << fmt::format("{}{}  provider: {}  cachewise: {}  ({})\n", markdown ? "- " : "  ",
                           e.request, e.provider_reason, e.own_cause, verdict_text(e.verdict));
    }
    for (const auto& f : s.findings) {
        out << fmt::format("{}{} {} {}: {}\n", markdown ? "- " : "  ", f.rule, f.name, f.request,
                           f.message);
    }
}

} // namespace

void
print_with_diagnosis(const analysis::DiagnosisSummary& summary, Format format,
                     const std::function<void(std::ostream&)>& print_report, std::ostream& out)
{
    if (summary.with_diagnosis == 0) {
        print_report(out);
        return;
    }
    if (format == Format::json) {
        std::ostringstream buffer;
        print_report(buffer);
        auto j = Json::parse(buffer.str(), nullptr, false);
        if (j.is_object()) {
            j["provider_diagnosis"] = summary_json(summary);
            out << j.dump(2, ' ', false, Json::error_handler_t::replace) << "\n";
            return;
        }
        out << buffer.str();
        return;
    }
    print_report(out);
    if (format == Format::text || format == Format::markdown) {
        section(summary, format == Format::markdown, out);
    }
}

} // namespace cachewise::report
