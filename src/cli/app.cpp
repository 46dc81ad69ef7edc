#include "cli/app.hpp"

#include "cli/options.hpp"
#include "cli/output.hpp"
#include "cli/progress.hpp"
#include "report/findings_printer.hpp"
#include "util/error.hpp"
#include "util/escape.hpp"
#include "util/file.hpp"
#include "util/time.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>

namespace cachewise::cli {

namespace {

// Reported ÷ estimated input tokens beyond which (or below 1/x) a request's
// usage is suspect: the estimator's error band is ±20%, not ×10.
constexpr double k_suspect_scale = 10.0;

} // namespace

unsigned
GlobalOptions::parsed_jobs() const
{
    return jobs > 0 ? jobs : ingest::default_jobs();
}

ingest::InputFormat
GlobalOptions::parsed_input_format() const
{
    if (const auto f = ingest::parse_input_format(input_format)) {
        return *f;
    }
    throw Error(fmt::format("--input-format: unknown format \"{}\" (expected auto, request, "
                            "exchange, sse, claude-code or vcr)",
                            input_format));
}

report::Format
GlobalOptions::parsed_format() const
{
    if (const auto f = report::parse_format(format)) {
        return *f;
    }
    throw Error(fmt::format("--format: unknown format \"{}\" (expected text, json, markdown, csv, "
                            "sarif, github or html)",
                            format));
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
        // Annotations name files from the checkout's root, else from here.
        const char* workspace = std::getenv("GITHUB_WORKSPACE");
        report::print_github(findings, std::cout,
                             workspace != nullptr && *workspace != '\0'
                                 ? std::string(workspace)
                                 : std::filesystem::current_path().string());
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
    if (dynamic_field_files.empty() && config.dynamic_fields.value.empty() && price_files.empty()) {
        return rules;
    }
    auto extended = std::make_shared<ruleset::Rules>(*rules);
    for (const auto& file : price_files) {
        ruleset::add_prices(extended->pricing, file);
    }
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
    for (const auto& note : summary.notes) {
        fmt::print(stderr, "cachewise: {}\n", note);
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
                       ? fmt::format(" ({} broken record{})", summary.error_count,
                                     summary.error_count == 1 ? "" : "s")
                       : "");
        return static_cast<int>(ExitCode::usage);
    }
    if (global.strict && summary.error_count > 0) {
        fmt::print(stderr, "cachewise: error: {} broken record{} (--strict)\n", summary.error_count,
                   summary.error_count == 1 ? "" : "s");
        return static_cast<int>(ExitCode::usage);
    }
    return 0;
}

void
keep_stdin(const std::vector<std::string>& inputs, bool keep)
{
    const auto named = std::count(inputs.begin(), inputs.end(), "-");
    if (named > 1) {
        throw Error("- (standard input) is given more than once");
    }
    if (named == 1 && keep) {
        value_or_throw(read_file("-"), "");
    }
}

LoadedLog
load_log(const GlobalOptions& global, const ruleset::Rules& rules,
         const std::vector<std::string>& inputs, ingest::LoadOptions options,
         const ingest::Loader::RequestCallback& on_request)
{
    keep_stdin(inputs, false);
    options.format = global.parsed_input_format();
    options.jobs = global.parsed_jobs();
    TokenizerHook tokenizer(global, options);
    ingest::Loader loader(rules, options);
    ProgressLine progress(ProgressLine::wanted(global.quiet));
    loader.set_progress([&](const ingest::LoadProgress& p) { progress.update(p); });
    LoadedLog out;
    // Usage ten times above or below what the logged text can hold is
    // usually another request's: said once, with the first such request.
    std::size_t off_scale = 0;
    std::string first_off;
    const auto checked = [&](model::Request&& r) {
        if (r.token_scale >= k_suspect_scale || r.token_scale <= 1 / k_suspect_scale) {
            if (off_scale++ == 0) {
                first_off = fmt::format("{} reports {}× the tokens its logged text holds", r.id,
                                        r.token_scale >= 1 ? fmt::format("{:.0f}", r.token_scale)
                                                           : fmt::format("{:.3f}", r.token_scale));
            }
        }
        on_request(std::move(r));
    };
    out.summary = loader.load(inputs, tokenizer.wrap(checked));
    progress.erase();
    if (off_scale > 0) {
        fmt::print(stderr,
                   "cachewise: warning: {} request{} with usage an order of magnitude off the "
                   "estimate of the logged prompt ({}): is the usage attached to the right "
                   "request? Token positions are scaled by it.\n",
                   off_scale, off_scale == 1 ? "" : "s", first_off);
    }
    report_load_errors(global, out.summary);
    const auto& s = out.summary;
    if (s.requests == 0 && s.error_count == 0 && (s.filtered > 0 || s.files_skipped > 0)) {
        // A window that selects nothing is an answer, not an input error.
        std::string why;
        if (s.filtered > 0) {
            why = fmt::format("{} request{} outside it", s.filtered, s.filtered == 1 ? "" : "s");
        }
        if (s.files_skipped > 0) {
            why += fmt::format("{}{} file{} last written before it", why.empty() ? "" : ", ",
                               s.files_skipped, s.files_skipped == 1 ? "" : "s");
        }
        fmt::print("0 requests in [{}, {}) ({})\n",
                   options.since ? format_rfc3339(*options.since) : "the start",
                   options.until ? format_rfc3339(*options.until) : "the end", why);
        out.status = -1;
        return out;
    }
    out.status = load_exit_status(global, out.summary);
    return out;
}

namespace {

// A command line CLI11 rejected: "cachewise: error: ..." and a pointer to the
// help, exit 2; --help and --version print to standard output, exit 0.
int
parse_error_status(CLI::App& app, const CLI::ParseError& e, int argc, char** argv)
{
    const auto known = app.get_subcommands(
        [&](const CLI::App* sub) { return argc > 1 && sub->check_name(argv[1]); });
    if (argc > 1 && argv[1][0] != '-' && known.empty()) {
        fmt::print(stderr,
                   "cachewise: error: unknown command \"{}\" (expected analyze, audit, chain, "
                   "lint, suggest, bench or config)\n",
                   argv[1]);
        return static_cast<int>(ExitCode::usage);
    }
    if (e.get_exit_code() == 0) {
        (void)app.exit(e);
        return Output(std::nullopt).finish(0);
    }
    fmt::print(stderr, "cachewise: error: {}\n", e.what());
    fmt::print(stderr, "Run `cachewise --help` or `cachewise COMMAND --help` for the options.\n");
    return static_cast<int>(ExitCode::usage);
}

// The options every command takes, before or after the command's name.
void
add_global_options(CLI::App& app, GlobalOptions& global)
{
    app.add_option("--rules", global.rules_dir,
                   "Directory of rules files replacing the built-in ones (also $CACHEWISE_RULES)")
        ->type_name("DIR");
    app.add_option("--input-format", global.input_format,
                   "Input format: auto, request, exchange, sse, claude-code, vcr (default auto)")
        ->type_name("FORMAT");
    app.add_flag("--strict", global.strict, "Exit with status 2 when any record is broken");
    app.add_option("--format", global.format,
                   "Output format (default text): text, json, markdown (analyze, audit), csv "
                   "(audit), sarif or github (findings of analyze, audit, lint), html (analyze, "
                   "audit)")
        ->type_name("FORMAT");
    app.add_option("--dynamic-fields", global.dynamic_field_files,
                   "A file of extra dynamic-field patterns (format of rules/dynamic-fields.json); "
                   "repeat the option for more files")
        ->type_name("FILE")
        ->expected(1)
        ->allow_extra_args(false)
        ->take_all();
    app.add_option("-o,--output", global.output,
                   "Write the report to FILE instead of standard output, whole or not at all "
                   "(on an error FILE keeps its old content)")
        ->type_name("FILE");
    app.add_option("--prices", global.price_files,
                   "A price file (format of rules/pricing.json) laid over the built-in prices: "
                   "its models replace the ones they match; repeatable")
        ->type_name("FILE")
        ->allow_extra_args(false);
    app.add_flag("-q,--quiet", global.quiet,
                 "Do not list skipped records on standard error, nor draw the progress line");
    app.add_option("--jobs", global.jobs,
                   "Threads that read the logs (default: the cores available); 1 reads on one "
                   "thread. The output is the same whatever the number")
        ->type_name("N")
        ->check(CLI::Validator(
            [](const std::string& value) -> std::string {
                const bool digits = !value.empty() && value.size() <= 4 &&
                                    value.find_first_not_of("0123456789") == std::string::npos;
                if (digits && std::stoul(value) >= 1 && std::stoul(value) <= 1024) {
                    return "";
                }
                return fmt::format("expected a number of threads from 1 to 1024, got \"{}\"",
                                   value);
            },
            "N"));
    app.add_flag("--tokenize", global.tokenize,
                 "Count OpenAI, DeepSeek and open-model requests with the model's own tokenizer "
                 "(rules/tokenizers/), offline");
    app.add_option("--tokenizer-dir", global.tokenizer_dir,
                   "A folder of vocabulary files cachewise does not ship (llama3.tokenizer.json)")
        ->type_name("DIR");
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
}

// Positionals show their name only ("LOG ...", not CLI11's "LOG TEXT ..."),
// in the command and in its own commands (bench prefill).
void
clean_help(CLI::App& command)
{
    for (auto* option : command.get_options({})) {
        if (option->get_positional()) {
            option->type_name("");
        }
    }
    for (auto* sub : command.get_subcommands({})) {
        clean_help(*sub);
    }
}

// -o naming one of the command's own files would replace an input (a log, a
// baseline) with the report: refused before anything is read.
void
check_output_not_input(const std::optional<std::string>& output, int argc, char** argv)
{
    std::error_code ec;
    if (!output || *output == "-" || !std::filesystem::exists(*output, ec)) {
        return;
    }
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg = argv[i];
        const std::string_view before = i > 1 ? argv[i - 1] : "";
        if (before == "-o" || before == "--output" || arg.rfind("-o", 0) == 0 ||
            arg.rfind("--output=", 0) == 0) {
            continue; // the -o value itself
        }
        if (std::filesystem::equivalent(std::string(arg), *output, ec)) {
            throw Error(fmt::format("-o {}: is also an input of the command; the report would "
                                    "replace it",
                                    *output));
        }
    }
}

// Each command's help names the global options, and none shows CLI11's
// "TEXT" or "REQUIRED".
void
finish_help(CLI::App& app)
{
    for (auto* command : app.get_subcommands({})) {
        clean_help(*command);
        command->footer("Global options (before or after the command; see cachewise --help): "
                        "--format, -o FILE, --rules, --input-format, --strict, -q, "
                        "--dynamic-fields, --fail-on, --baseline, --max-regression");
    }
    app.get_formatter()->label("REQUIRED", "(required)");
}

// --baseline must be a result of the command it gates: checked before the
// run, so that a long audit does not end on a baseline it cannot use.
void
check_baseline_command(const std::optional<std::string>& baseline, const std::string& command)
{
    if (!baseline) {
        return;
    }
    const auto text = read_file(*baseline);
    if (!text) {
        throw Error(fmt::format("--baseline {}", text.error()));
    }
    const auto j = nlohmann::json::parse(*text, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("command") || !j["command"].is_string()) {
        throw Error(fmt::format("--baseline {}: not a cachewise --format json result (expected "
                                "the output of `cachewise {} --format json`)",
                                *baseline, command));
    }
    const auto made_by = j["command"].get<std::string>();
    if (made_by != command) {
        throw Error(fmt::format("--baseline {}: a result of `{}`; `{}` needs a result of "
                                "`cachewise {} --format json`",
                                *baseline, made_by, command, command));
    }
}

} // namespace

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
    add_global_options(app, global);

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
    ProbeCliOptions probe;
    add_probe_command(app, probe);
    TokensCliOptions tokens;
    add_tokens_command(app, tokens);
    auto* config = app.add_subcommand(
        "config", "Show the project configuration (.cachewise.json) and its origins");
    config->add_subcommand("show", "Print every setting and where it came from")
        ->require_subcommand(0);
    config->require_subcommand(1);
    finish_help(app);

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return parse_error_status(app, e, argc, argv);
    }

    const auto dispatch = [&]() -> int {
        for (const char* gated : {"lint", "analyze", "audit"}) {
            if (app.got_subcommand(gated)) {
                check_baseline_command(global.baseline, gated);
            }
        }
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
        if (app.got_subcommand("tokens")) {
            return run_tokens(global, tokens);
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
        if (app.got_subcommand("probe")) {
            return run_probe(global, probe);
        }
        std::cout << app.help();
        return static_cast<int>(ExitCode::usage);
    };
    try {
        global.config = load_project_config(std::filesystem::current_path());
        check_output_not_input(global.output, argc, argv);
        Output output(global.output);
        return output.finish(dispatch());
    } catch (const Error& e) {
        // Messages may quote an input: printed escaped and redacted.
        fmt::print(stderr, "cachewise: error: {}\n", safe_text(e.what()));
        return static_cast<int>(e.code());
    } catch (const std::bad_alloc&) {
        fmt::print(stderr, "cachewise: error: out of memory\n");
        return static_cast<int>(ExitCode::usage);
    } catch (const std::exception& e) {
        // A failure no layer turned into an Error (a file system call, a
        // library, a bug): still one line and status 2, never an abort.
        fmt::print(stderr, "cachewise: error: {}\n", safe_text(e.what()));
        return static_cast<int>(ExitCode::usage);
    }
}

} // namespace cachewise::cli
