#include "cli/lint_inputs.hpp"
#include "cli/options.hpp"
#include "cli/setting_options.hpp"
#include "live/exact_counter.hpp"
#include "report/lint_printer.hpp"
#include "report/printable.hpp"
#include "util/error.hpp"
#include "util/escape.hpp"
#include "util/format.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <iostream>

namespace cachewise::cli {

void
add_lint_command(CLI::App& app, LintCliOptions& options, FlagValues& flags)
{
    auto* cmd = app.add_subcommand(
        "lint", "Check request bodies and templates for cache-breaking placement, without a log");
    cmd->add_option("FILE", options.inputs,
                    "Request bodies or templates (JSON), or directories of them")
        ->required();
    add_setting_option(*cmd, Key::model, flags, "Lint as if the requests used this model");
    add_setting_option(*cmd, Key::placeholders, flags);
    add_setting_option(*cmd, Key::disabled_rules, flags);
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

namespace {

// Notes, warnings and skipped files go to standard error, beside the report.
void
report_lint_notes(const Settings& settings, const advise::LintResult& result)
{
    if (!settings.quiet) {
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
}

} // namespace

int
run_lint(const Settings& global, const LintCliOptions& options)
{
    const auto rules = global.load_rules();
    const auto format = global.format.value;
    advise::LintOptions lint_options;
    lint_options.model = global.model.value;
    lint_options.placeholders = global.placeholder_patterns();
    lint_options.disabled.insert(global.disabled_rules.value.begin(),
                                 global.disabled_rules.value.end());
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
    const Gate gate = global.gate(FailOn{FailOn::Level::error, {}, "error"});
    keep_stdin(options.inputs); // a template is read twice: its request, then its bytes
    TokenizerHook tokenizer(global);
    lint_options.count_exact = [&tokenizer](const std::string& model, std::string_view text) {
        return tokenizer.count_text(model, text);
    };
    auto result = lint_files(options.inputs, *rules, lint_options, &tokenizer);
    report::make_printable(result.findings);
    report_lint_notes(global, result);
    if (!global.quiet) {
        for (const auto& note : tokenizer.notes()) {
            fmt::print(stderr, "cachewise: note: {}\n", note);
        }
    }
    if (result.files == 0) {
        throw Error(fmt::format("no request body or template to lint ({} skipped)",
                                count_noun(result.skipped.size(), "file")));
    }
    const auto counted = new_findings(result.findings, gate);
    if (!print_findings_format(global, result.findings, gate)) {
        report::LintReport report{result, nullptr, std::nullopt};
        if (gate.baseline != nullptr) {
            report.new_since_baseline = &counted;
        }
        if (counter) {
            report.exact =
                report::ExactCountSummary{counter->prefixes(), counter->calls(), counter->cached()};
        }
        report::print_lint(report, format, std::cout);
    }
    return gate_status(counted, gate);
}

} // namespace cachewise::cli
