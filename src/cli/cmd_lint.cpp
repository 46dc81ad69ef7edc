#include "advise/lint.hpp"
#include "cli/options.hpp"
#include "live/exact_counter.hpp"
#include "report/finding_json.hpp"
#include "report/printable.hpp"
#include "report/request_json.hpp"
#include "util/error.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <iostream>

namespace cachewise::cli {

void
add_lint_command(CLI::App& app, LintCliOptions& options)
{
    auto* cmd = app.add_subcommand(
        "lint", "Check request bodies and templates for cache-breaking placement, without a log");
    cmd->add_option("FILE", options.inputs,
                    "Request bodies or templates (JSON), or directories of them")
        ->required();
    cmd->add_option("--model", options.model, "Lint as if the requests used this model")
        ->type_name("MODEL");
    cmd->add_option("--placeholder", options.placeholders,
                    "An RE2 pattern of template placeholders (repeatable; default {{name}}, "
                    "${name}, {name})")
        ->type_name("PATTERN")
        ->expected(1)
        ->allow_extra_args(false)
        ->take_all();
    cmd->add_option("--disable", options.disable, "A rule id not to report (repeatable)")
        ->type_name("ID")
        ->expected(1)
        ->allow_extra_args(false)
        ->take_all();
    cmd->add_flag("--exact-tokens", options.exact_tokens,
                  "Count the prefixes a minimum check depends on with the provider's "
                  "count_tokens endpoint (cached on disk)");
    cmd->add_option("--base-url", options.base_url,
                    "With --exact-tokens: the server to count with instead of the provider's")
        ->type_name("URL");
    cmd->add_option("--api-key-file", options.api_key_file,
                    "With --exact-tokens: read the API key from this file")
        ->type_name("FILE");
}

int
run_lint(const GlobalOptions& global, const LintCliOptions& options)
{
    const auto rules = global.load_rules();
    const auto format = global.parsed_format();
    if (format == report::Format::markdown || format == report::Format::csv ||
        format == report::Format::html) {
        throw Error(fmt::format("lint: --format {} is not offered (text, json, sarif or github)",
                                report::to_string(format)));
    }
    const ProjectConfig& config = global.config;
    advise::LintOptions lint_options;
    lint_options.model = options.model ? *options.model : config.model.value;
    if (!options.placeholders.empty()) {
        lint_options.placeholders = options.placeholders;
    } else if (!config.placeholders.value.empty()) {
        lint_options.placeholders = config.placeholders.value;
    }
    lint_options.disabled.insert(config.disabled_rules.value.begin(),
                                 config.disabled_rules.value.end());
    lint_options.disabled.insert(options.disable.begin(), options.disable.end());

    if (!options.exact_tokens && (options.base_url || options.api_key_file)) {
        throw Error("lint: --base-url and --api-key-file go with --exact-tokens");
    }
    live::HttpClient client;
    std::optional<live::ExactCounter> counter;
    if (options.exact_tokens) {
        counter.emplace(client, options.base_url, options.api_key_file,
                        live::default_count_cache());
        lint_options.counter = &*counter;
    }
    const Gate gate = global.gate("error");
    keep_stdin(options.inputs); // a template is read twice: its request, then its bytes
    auto result = advise::lint(options.inputs, *rules, lint_options);
    report::make_printable(result.findings);
    const std::string exact =
        counter ? fmt::format(" · exact counts: {} prefix{}, {} call{} to count tokens, {} from "
                              "the cache",
                              counter->prefixes(), counter->prefixes() == 1 ? "" : "es",
                              counter->calls(), counter->calls() == 1 ? "" : "s", counter->cached())
                : std::string();
    if (!global.quiet) {
        for (const auto& note : result.notes) {
            fmt::print(stderr, "cachewise: {}\n", note);
        }
    }
    for (const auto& warning : result.warnings) {
        fmt::print(stderr, "cachewise: warning: {}\n", warning);
    }
    for (const auto& skipped : result.skipped) {
        fmt::print(stderr, "cachewise: skipped {}\n", skipped);
    }
    if (result.files == 0) {
        throw Error(fmt::format("no request body or template to lint ({} file{} skipped)",
                                result.skipped.size(), result.skipped.size() == 1 ? "" : "s"));
    }
    const auto counted = new_findings(result.findings, gate);

    if (!print_findings_format(format, result.findings)) {
        if (format == report::Format::json) {
            report::Json j;
            j["schema_version"] = 1;
            j["command"] = "lint";
            j["files"] = result.files;
            report::Json findings = report::Json::array();
            for (const auto& f : result.findings) {
                findings.push_back(report::finding_to_json(f));
            }
            j["findings"] = findings;
            if (counter) {
                j["exact_tokens"] = {{"prefixes", counter->prefixes()},
                                     {"calls", counter->calls()},
                                     {"cached", counter->cached()}};
            }
            std::cout << j.dump(2, ' ', false, report::Json::error_handler_t::replace) << "\n";
        } else {
            for (const auto& f : result.findings) {
                const std::string where =
                    f.line > 0 ? fmt::format("{}:{}:{}", f.file, f.line, f.column) : f.file;
                fmt::print("{}: {} {} {}{}: {}\n", where, analysis::to_string(f.severity), f.rule,
                           f.name, f.kind.empty() ? "" : " (" + f.kind + ")", f.message);
                if (f.excerpt && !f.excerpt->now.empty()) {
                    fmt::print("    {}: {}\n", f.location.path, f.excerpt->now);
                }
            }
            fmt::print(
                "{} file{} linted · {} finding{}{}{}\n", result.files, result.files == 1 ? "" : "s",
                result.findings.size(), result.findings.size() == 1 ? "" : "s",
                gate.baseline ? fmt::format(" ({} new since the baseline)", counted.size()) : "",
                exact);
        }
    }
    return gate_status(counted, gate);
}

int
run_config_show(const GlobalOptions& global)
{
    ProjectConfig shown = global.config;
    if (global.fail_on) {
        shown.fail_on = {*global.fail_on, "command line"};
    }
    if (global.max_regression) {
        shown.max_regression = {*global.max_regression, "command line"};
    }
    if (!global.dynamic_field_files.empty()) {
        shown.dynamic_fields.value.insert(shown.dynamic_fields.value.end(),
                                          global.dynamic_field_files.begin(),
                                          global.dynamic_field_files.end());
        shown.dynamic_fields.origin = "command line";
    }
    std::cout << describe(shown);
    return 0;
}

} // namespace cachewise::cli
