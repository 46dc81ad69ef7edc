#include "analysis/analyzer.hpp"
#include "cli/disabled_rules.hpp"
#include "cli/options.hpp"
#include "cli/request_watchers.hpp"
#include "cli/setting_options.hpp"
#include "cli/validators.hpp"
#include "report/analysis_printer.hpp"
#include "report/diagnosis_printer.hpp"
#include "report/printable.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <iostream>
#include <set>
#include <string>

namespace cachewise::cli {

void
add_analyze_command(CLI::App& app, AnalyzeOptions& options, FlagValues& flags)
{
    auto* cmd = app.add_subcommand("analyze", "Find, for every request, where it parts from the "
                                              "earlier request it should have reused, and why");
    add_log_argument(*cmd, options.inputs);
    cmd->add_option("--top", options.top, "Rows in each top list (default 10)")
        ->type_name("N")
        ->check(at_least(1));
    cmd->add_flag("--details", options.details, "List every break with its was/now excerpt");
    add_setting_option(*cmd, Key::window, flags);
    add_setting_option(*cmd, Key::disabled_rules, flags);
}

int
run_analyze(const Settings& global, const AnalyzeOptions& options)
{
    const analysis::AnalyzeOptions analyze_options{.window_seconds = global.window.value.seconds,
                                                   .top = options.top,
                                                   .threads = global.threads()};
    const auto rules = global.load_rules();
    const auto format = global.format.value;

    model::TextStore texts; // the divergent segments are quoted from here
    ingest::LoadOptions load_options;
    load_options.text_store = &texts;
    WatchedAnalysis run(global, *rules, analyze_options, texts);
    if (const auto status = run.load(global, *rules, options.inputs, load_options)) {
        return *status;
    }
    const auto& watch = run.watch;
    auto result = run.analyzer.finish();
    run.analyzer.release_requests();
    // A credential spoils the prompt after it when rotated: listed with the dynamic fields.
    result.dynamic_fields.insert(result.dynamic_fields.end(), watch.secrets.findings().begin(),
                                 watch.secrets.findings().end());
    const std::set<std::string> off(global.disabled_rules.value.begin(),
                                    global.disabled_rules.value.end());
    std::size_t dropped = drop_disabled(result, off);
    report::make_printable(result.findings);
    report::make_printable(result.dynamic_fields);
    report::make_printable(result.latent);
    const Gate gate = global.gate(FailOn{});
    std::vector<analysis::Finding> findings = result.findings;
    findings.insert(findings.end(), result.dynamic_fields.begin(), result.dynamic_fields.end());
    findings.insert(findings.end(), result.latent.begin(), result.latent.end());
    auto diagnosis = watch.diagnoses.compare(result);
    dropped += drop_disabled(diagnosis.findings, off);
    note_disabled(dropped, off, global.quiet);
    findings.insert(findings.end(), diagnosis.findings.begin(), diagnosis.findings.end());
    const auto counted = new_findings(findings, gate);
    if (!print_findings_format(global, findings, gate)) {
        report::print_with_diagnosis(
            diagnosis, format,
            [&](std::ostream& out) {
                report::print_analysis(result, run.loaded.summary,
                                       {format, options.details, options.top}, out);
            },
            std::cout);
        print_baseline_summary(global, findings, counted, gate);
    }
    return gate_status(counted, gate);
}

} // namespace cachewise::cli
