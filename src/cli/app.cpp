#include "cli/app.hpp"

#include "cli/options.hpp"
#include "report/findings_printer.hpp"
#include "util/error.hpp"
#include "util/escape.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>

namespace cachewise::cli {

ingest::InputFormat
GlobalOptions::parsed_input_format() const
{
    if (const auto f = ingest::parse_input_format(input_format)) {
        return *f;
    }
    throw Error(fmt::format("--input-format: unknown format \"{}\" (expected auto, request, "
                            "exchange, sse or claude-code)",
                            input_format));
}

report::Format
GlobalOptions::parsed_format() const
{
    if (const auto f = report::parse_format(format)) {
        return *f;
    }
    throw Error(
        fmt::format("--format: unknown format \"{}\" (expected text, json or markdown)", format));
}

Gate
GlobalOptions::gate(const std::string& fallback) const
{
    Gate g;
    g.fail_on =
        fail_on ? *fail_on : (config.fail_on.origin != "default" ? config.fail_on.value : fallback);
    check_fail_on(g.fail_on);
    g.baseline = baseline;
    if (max_regression) {
        g.max_regression = max_regression;
    } else if (config.max_regression.origin != "default") {
        g.max_regression = config.max_regression.value;
    }
    return g;
}

bool
print_findings_format(report::Format format, const std::vector<analysis::Finding>& findings)
{
    if (format == report::Format::sarif) {
        report::print_sarif(findings, std::cout);
        return true;
    }
    if (format == report::Format::github) {
        report::print_github(findings, std::cout);
        return true;
    }
    return false;
}

std::shared_ptr<const ruleset::Rules>
GlobalOptions::load_rules() const
{
    std::optional<std::string> dir = rules_dir;
    if (!dir) {
        if (const char* env = std::getenv("CACHEWISE_RULES"); env != nullptr && *env != '\0') {
            dir = env;
        }
    }
    auto rules = ruleset::load_rules(dir);
    if (dynamic_field_files.empty() && config.dynamic_fields.value.empty()) {
        return rules;
    }
    auto extended = std::make_shared<ruleset::Rules>(*rules);
    for (const auto& file : config.dynamic_fields.value) {
        ruleset::add_dynamic_fields(extended->dynamic_fields, file);
    }
    for (const auto& file : dynamic_field_files) {
        ruleset::add_dynamic_fields(extended->dynamic_fields, file);
    }
    return extended;
}

void
report_load_errors(const GlobalOptions& global, const ingest::LoadSummary& summary)
{
    if (global.quiet) {
        return;
    }
    for (const auto& e : summary.errors) {
        fmt::print(stderr, "cachewise: skipped {}\n", e.str());
    }
    if (summary.error_count > summary.errors.size()) {
        fmt::print(stderr, "cachewise: ... and {} more broken records\n",
                   summary.error_count - summary.errors.size());
    }
}

int
load_exit_status(const GlobalOptions& global, const ingest::LoadSummary& summary)
{
    if (summary.requests == 0) {
        fmt::print(stderr, "cachewise: error: no usable request in the input{}\n",
                   summary.error_count > 0
                       ? fmt::format(" ({} broken records)", summary.error_count)
                       : "");
        return static_cast<int>(ExitCode::usage);
    }
    if (global.strict && summary.error_count > 0) {
        fmt::print(stderr, "cachewise: error: {} broken records (--strict)\n", summary.error_count);
        return static_cast<int>(ExitCode::usage);
    }
    return 0;
}

LoadedLog
load_log(const GlobalOptions& global, const ruleset::Rules& rules,
         const std::vector<std::string>& inputs, ingest::LoadOptions options,
         const ingest::Loader::RequestCallback& on_request)
{
    options.format = global.parsed_input_format();
    ingest::Loader loader(rules, options);
    LoadedLog out;
    out.summary = loader.load(inputs, on_request);
    report_load_errors(global, out.summary);
    out.status = load_exit_status(global, out.summary);
    return out;
}

int
run(int argc, char** argv)
{
    CLI::App app{"cachewise: find why LLM prompt caches miss, what it costs, and how to fix it",
                 "cachewise"};
    app.require_subcommand(0, 1);
    app.fallthrough(); // global options may follow the command
    app.set_version_flag("--version", version_text(),
                         "Print the version and the compiled-in features");

    GlobalOptions global;
    app.add_option("--rules", global.rules_dir,
                   "Directory of rules files replacing the built-in ones (also $CACHEWISE_RULES)")
        ->type_name("DIR");
    app.add_option("--input-format", global.input_format,
                   "Input format: auto, request, exchange, sse, claude-code (default auto)")
        ->type_name("FORMAT");
    app.add_flag("--strict", global.strict, "Exit with status 2 when any record is broken");
    app.add_option("--format", global.format,
                   "Output format: text, json or markdown (default text)")
        ->type_name("FORMAT");
    app.add_option("--dynamic-fields", global.dynamic_field_files,
                   "A file of extra dynamic-field patterns (format of rules/dynamic-fields.json); "
                   "repeatable")
        ->type_name("FILE");
    app.add_flag("-q,--quiet", global.quiet, "Do not list skipped records on standard error");
    app.add_option("--fail-on", global.fail_on,
                   "Exit 1 on findings at or above a level (error, warning, info, none) or with "
                   "these rule ids "
                   "(CW010,CW012)")
        ->type_name("LEVEL|IDS");
    app.add_option("--baseline", global.baseline,
                   "A previous --format json result: only new findings count (and, for audit, the "
                   "hit-rate drop)")
        ->type_name("FILE");
    app.add_option("--max-regression", global.max_regression,
                   "With --baseline: exit 1 when audit's token-weighted hit rate falls more than "
                   "this many points")
        ->type_name("POINTS");

    ChainOptions chain;
    add_chain_command(app, global, chain);
    AnalyzeOptions analyze;
    add_analyze_command(app, analyze);
    AuditOptions audit;
    add_audit_command(app, audit);
    LintCliOptions lint;
    add_lint_command(app, lint);
    SuggestCliOptions suggest;
    add_suggest_command(app, suggest);
    BenchCliOptions bench;
    add_bench_command(app, bench);
    auto* config = app.add_subcommand(
        "config", "Show the project configuration (.cachewise.json) and its origins");
    config->add_subcommand("show", "Print every setting and where it came from")
        ->require_subcommand(0);
    config->require_subcommand(1);

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        const int code = app.exit(e);
        // CLI11 returns 0 for --help and --version; every real parse error is a usage error.
        return code == 0 ? 0 : static_cast<int>(ExitCode::usage);
    }

    try {
        global.config = load_project_config(std::filesystem::current_path());
        if (app.got_subcommand("config")) {
            return run_config_show(global);
        }
        if (app.got_subcommand("lint")) {
            return run_lint(global, lint);
        }
        if (app.got_subcommand("suggest")) {
            return run_suggest(global, suggest);
        }
        if (app.got_subcommand("bench")) {
            return run_bench_prefill(global, bench);
        }
        if (app.got_subcommand("chain")) {
            return run_chain(global, chain);
        }
        if (app.got_subcommand("analyze")) {
            return run_analyze(global, analyze);
        }
        if (app.got_subcommand("audit")) {
            return run_audit(global, audit);
        }
        std::cout << app.help();
        return static_cast<int>(ExitCode::usage);
    } catch (const Error& e) {
        // Messages may quote an input: printed escaped and redacted.
        fmt::print(stderr, "cachewise: error: {}\n", safe_text(e.what()));
        return static_cast<int>(e.code());
    } catch (const std::bad_alloc&) {
        fmt::print(stderr, "cachewise: error: out of memory\n");
        return static_cast<int>(ExitCode::usage);
    } catch (const std::exception& e) {
        // A bug, but never an abort: say what and exit like a bad input.
        fmt::print(stderr, "cachewise: error: internal error: {}\n", safe_text(e.what()));
        return static_cast<int>(ExitCode::usage);
    }
}

} // namespace cachewise::cli
