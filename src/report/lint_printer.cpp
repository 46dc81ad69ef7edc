#include "report/lint_printer.hpp"

#include "report/finding_json.hpp"
#include "report/request_json.hpp"
#include "util/format.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <fmt/ranges.h>

namespace cachewise::report {

namespace {

void
print_json(const LintReport& report, std::ostream& out)
{
    const auto& result = report.result;
    Json j = json_document("lint");
    j["files"] = result.files;
    j["findings"] = json_array(result.findings, finding_to_json);
    if (result.files_exact > 0) {
        j["exact_token_counts"] = {{"files", result.files_exact},
                                   {"tokenizers", result.tokenizers}};
    }
    if (report.exact) {
        j["exact_tokens"] = {{"prefixes", report.exact->prefixes},
                             {"calls", report.exact->calls},
                             {"cached", report.exact->cached}};
    }
    out << j.dump(2, ' ', false, Json::error_handler_t::replace) << "\n";
}

// " · exact token counts for 2 of 3 files (o200k_base)": the files whose
// counts are not estimates.
std::string
exact_files_text(const advise::LintResult& result)
{
    if (result.files_exact == 0) {
        return {};
    }
    return fmt::format(" · exact token counts for {} of {} ({})", group_count(result.files_exact),
                       count_noun(result.files, "file"), fmt::join(result.tokenizers, ", "));
}

void
print_text(const LintReport& report, std::ostream& out)
{
    const auto& result = report.result;
    for (const auto& f : result.findings) {
        const std::string where =
            f.line > 0 ? fmt::format("{}:{}:{}", f.file, f.line, f.column) : f.file;
        fmt::print(out, "{}: {} {} {}{}: {}\n", where, analysis::to_string(f.severity), f.rule,
                   f.name, f.kind.empty() ? "" : " (" + f.kind + ")", f.message);
        if (f.excerpt && !f.excerpt->now.empty()) {
            fmt::print(out, "    {}: {}\n", f.location.path, f.excerpt->now);
        }
    }
    fmt::print(out, "{} linted · {}{}{}{}\n", count_noun(result.files, "file"),
               count_noun(result.findings.size(), "finding"), exact_files_text(result),
               report.new_since_baseline
                   ? fmt::format(" ({} new since the baseline)",
                                 group_count(report.new_since_baseline->size()))
                   : "",
               report.exact ? " · " + exact_count_text(*report.exact) : std::string());
    if (report.new_since_baseline != nullptr) {
        for (const auto& f : *report.new_since_baseline) {
            fmt::print(out, "  new: {}:{}:{} {} {} at {}\n", f.file, f.line, f.column, f.rule,
                       f.name, f.location.path);
        }
    }
}

} // namespace

void
print_lint(const LintReport& report, Format format, std::ostream& out)
{
    if (format == Format::json) {
        print_json(report, out);
    } else {
        print_text(report, out);
    }
}

} // namespace cachewise::report
