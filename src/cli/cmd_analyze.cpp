#include "analysis/analyzer.hpp"
#include "cli/options.hpp"
#include "cli/request_watchers.hpp"
#include "report/analysis_printer.hpp"
#include "report/diagnosis_printer.hpp"
#include "report/printable.hpp"
#include "util/error.hpp"
#include "util/time.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <iostream>

namespace cachewise::cli {

void
add_analyze_command(CLI::App& app, AnalyzeOptions& options)
{
    auto* cmd = app.add_subcommand("analyze", "Find, for every request, where it parts from the "
                                              "earlier request it should have reused, and why");
    cmd->add_option("LOG", options.inputs,
                    "Log files or directories (walked recursively); - reads standard input")
        ->required();
    cmd->add_option("--top", options.top, "Rows in each top list (default 10)")->type_name("N");
    cmd->add_flag("--details", options.details, "List every break with its was/now excerpt");
    cmd->add_option("--window", options.window,
                    "How far back a partner may be: 90s, 30m, 1h, 1h30m (default 1h)")
        ->type_name("DURATION");
}

int
run_analyze(const GlobalOptions& global, const AnalyzeOptions& options)
{
    const auto rules = global.load_rules();
    const auto format = global.parsed_format();
    if (format == report::Format::csv) {
        throw Error("analyze: --format csv is not offered (text, json, markdown or html)");
    }
    analysis::AnalyzeOptions analyze_options;
    analyze_options.window_seconds = value_or_throw(
        parse_duration(options.window.value_or(global.config.window.value)), "--window");
    if (analyze_options.window_seconds <= 0) {
        throw Error("--window: must be longer than 0");
    }
    analyze_options.top = options.top;

    model::TextStore texts; // the divergent segments are quoted from here
    ingest::LoadOptions load_options;
    load_options.text_store = &texts;
    analysis::Analyzer analyzer(*rules, analyze_options, texts);
    RequestWatchers watch(texts);
    // Named, not a structured binding: lambdas below capture it (clang 14).
    const LoadedLog loaded =
        load_log(global, *rules, options.inputs, load_options, [&](model::Request&& r) {
            watch.note(r);
            analyzer.add(std::move(r));
        });
    const auto& load = loaded.summary;
    const int status = loaded.status;
    if (status != 0) {
        return status < 0 ? 0 : status;
    }
    auto result = analyzer.finish();
    // A credential spoils the prompt after it when rotated: listed with the dynamic fields.
    result.dynamic_fields.insert(result.dynamic_fields.end(), watch.secrets.findings().begin(),
                                 watch.secrets.findings().end());
    report::make_printable(result.findings);
    report::make_printable(result.dynamic_fields);
    report::make_printable(result.latent);
    const Gate gate = global.gate("none");
    std::vector<analysis::Finding> findings = result.findings;
    findings.insert(findings.end(), result.dynamic_fields.begin(), result.dynamic_fields.end());
    findings.insert(findings.end(), result.latent.begin(), result.latent.end());
    const auto diagnosis = watch.diagnoses.compare(result);
    findings.insert(findings.end(), diagnosis.findings.begin(), diagnosis.findings.end());
    if (!print_findings_format(format, findings)) {
        report::print_with_diagnosis(
            diagnosis, format,
            [&](std::ostream& out) {
                report::print_analysis(result, load, {format, options.details, options.top}, out);
            },
            std::cout);
    }
    return gate_status(new_findings(findings, gate), gate);
}

} // namespace cachewise::cli
