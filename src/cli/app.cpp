#include "cli/app.hpp"

#include "cli/options.hpp"
#include "cli/output.hpp"
#include "cli/progress.hpp"
#include "cli/setting_options.hpp"
#include "cli/validators.hpp"
#include "report/empty_window.hpp"
#include "report/findings_printer.hpp"
#include "util/error.hpp"
#include "util/escape.hpp"
#include "util/file.hpp"
#include "util/format.hpp"
#include "util/time.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <iostream>

namespace cachewise::cli {

namespace {

// Reported ÷ estimated input tokens beyond which (or below 1/x) a request's
// usage is suspect: the estimator's error band is ±20%, not ×10.
constexpr double k_suspect_scale = 10.0;

} // namespace

bool
print_findings_format(const Settings& settings, const std::vector<analysis::Finding>& findings,
                      const Gate& gate)
{
    if (settings.format.value == report::Format::sarif) {
        report::print_sarif(findings, std::cout);
        return true;
    }
    if (settings.format.value == report::Format::github) {
        // Annotations name files from the checkout's root, else from here.
        const auto annotated = new_findings(findings, gate);
        report::print_github(
            annotated, std::cout,
            settings.github_workspace.value.value_or(std::filesystem::current_path().string()),
            findings.size() - annotated.size());
        return true;
    }
    return false;
}

void
print_baseline_summary(const Settings& settings, const std::vector<analysis::Finding>& findings,
                       const std::vector<analysis::Finding>& counted, const Gate& gate)
{
    if (gate.baseline == nullptr || settings.format.value != report::Format::text) {
        return;
    }
    std::cout << fmt::format("\n{} ({} new since the baseline {})\n",
                             count_noun(findings.size(), "finding"), group_count(counted.size()),
                             gate.baseline->path);
    for (const auto& f : counted) {
        std::cout << fmt::format("  new: {} {} at {} ({})\n", f.rule, f.name,
                                 f.location.path.empty() ? "the request" : f.location.path,
                                 f.request.empty() ? f.stream : f.request);
    }
}

void
report_load_errors(const Settings& global, const ingest::LoadSummary& summary)
{
    if (global.quiet) {
        return;
    }
    // Both made safe to print where they were made (file names may hold a key).
    for (const auto& note : summary.notes) {
        fmt::print(stderr, "cachewise: {}\n", note);
    }
    for (const auto& e : summary.errors) {
        fmt::print(stderr, "cachewise: skipped {}\n", e.str());
    }
    if (summary.error_count > summary.errors.size()) {
        fmt::print(stderr, "cachewise: ... and {} more\n",
                   count_noun(summary.error_count - summary.errors.size(), "broken record"));
    }
}

int
load_exit_status(const Settings& global, const std::vector<std::string>& inputs,
                 const ingest::LoadSummary& summary)
{
    if (summary.requests == 0) {
        // Named, with what was read: an empty file, lines of another kind,
        // or only broken records are three different mistakes.
        const std::string what = inputs.size() == 1 && inputs.front() == "-" ? "standard input"
                                 : inputs.size() == 1                        ? inputs.front()
                                                                             : "the inputs";
        fmt::print(stderr, "cachewise: error: no usable request in {} ({}, {}, {}, {})\n",
                   safe_text(what), count_noun(summary.files, "file"), human_bytes(summary.bytes),
                   count_noun(summary.skipped, "non-request line"),
                   count_noun(summary.error_count, "broken record"));
        return static_cast<int>(ExitCode::usage);
    }
    if (global.strict && summary.error_count > 0) {
        fmt::print(stderr, "cachewise: error: {} (--strict)\n",
                   count_noun(summary.error_count, "broken record"));
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
load_log(const Settings& global, const ruleset::Rules& rules,
         const std::vector<std::string>& inputs, ingest::LoadOptions options,
         const ingest::Loader::RequestCallback& on_request)
{
    keep_stdin(inputs, false);
    options.format = global.input_format.value;
    options.jobs = global.threads();
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
                // A fraction as "1/N of": "0.000×" says nothing.
                first_off =
                    r.token_scale >= 1
                        ? fmt::format("{} reports {}× the tokens its logged text holds", r.id,
                                      group_count(std::nearbyint(std::min(r.token_scale, 9e18))))
                        : fmt::format("{} reports 1/{} of the tokens its logged text holds", r.id,
                                      group_count(std::nearbyint(
                                          std::min(1 / std::max(r.token_scale, 1e-18), 9e18))));
            }
        }
        on_request(std::move(r));
    };
    try {
        out.summary = loader.load(inputs, tokenizer.wrap(checked));
    } catch (...) {
        tokenizer.abandon();
        throw;
    }
    tokenizer.finish();
    progress.erase();
    if (off_scale > 0) {
        fmt::print(stderr,
                   "cachewise: warning: {} with usage an order of magnitude off the "
                   "estimate of the logged prompt ({}): is the usage attached to the right "
                   "request? Token positions are scaled by it.\n",
                   count_noun(off_scale, "request"), first_off);
    }
    report_load_errors(global, out.summary);
    if (!global.quiet) {
        for (const auto& note : tokenizer.notes()) {
            fmt::print(stderr, "cachewise: note: {}\n", note);
        }
    }
    const auto& s = out.summary;
    if (s.requests == 0 && (s.filtered > 0 || s.files_skipped > 0)) {
        // A window that selects nothing is an answer, not an input error,
        // whatever broken records beside it (reported above) held.
        report::print_empty_window(s, global.command, options.since, options.until,
                                   global.format.value, std::cout, std::cerr);
        if (global.format.value == report::Format::sarif) {
            report::print_sarif({}, std::cout); // a run without results: valid to its readers
        }
        if (global.strict && s.error_count > 0) {
            fmt::print(stderr, "cachewise: error: {} (--strict)\n",
                       count_noun(s.error_count, "broken record"));
            out.status = static_cast<int>(ExitCode::usage);
            return out;
        }
        out.status = -1;
        return out;
    }
    out.status = load_exit_status(global, inputs, out.summary);
    return out;
}

namespace {

// The first word after the command that is neither an option nor an
// option's value: what was meant as a subcommand.
std::optional<std::string>
first_word_after(const CLI::App& app, int argc, char** argv)
{
    for (int i = 2; i < argc; ++i) {
        const std::string_view arg = argv[i];
        if (arg.empty() || arg[0] != '-') {
            return std::string(arg);
        }
        const std::string name(arg.substr(0, arg.find('=')));
        const CLI::Option* option = app.get_option_no_throw(name);
        if (option != nullptr && option->get_items_expected_min() > 0 &&
            arg.find('=') == std::string_view::npos) {
            ++i; // its value
        }
    }
    return std::nullopt;
}

// A command line CLI11 rejected: "cachewise: error: ..." and a pointer to the
// help, exit 2; --help and --version print to standard output, exit 0.
int
parse_error_status(CLI::App& app, const CLI::ParseError& e, int argc, char** argv)
{
    const auto known = app.get_subcommands(
        [&](const CLI::App* sub) { return argc > 1 && sub->check_name(argv[1]); });
    if (argc > 1 && argv[1][0] != '-' && known.empty()) {
        std::vector<std::string> names;
        for (const auto* sub : app.get_subcommands({})) {
            names.push_back(sub->get_name());
        }
        std::sort(names.begin(), names.end());
        fmt::print(stderr, "cachewise: error: unknown command \"{}\" (expected {})\n", argv[1],
                   in_words(names));
        return static_cast<int>(ExitCode::usage);
    }
    // A command made of subcommands (config show): name the one that is not
    // one of them, or say which are expected, rather than CLI11's "A
    // subcommand is required".
    if (!known.empty() && !known[0]->get_subcommands({}).empty() &&
        dynamic_cast<const CLI::RequiredError*>(&e) != nullptr) {
        std::vector<std::string> names;
        for (const auto* sub : known[0]->get_subcommands({})) {
            names.push_back(sub->get_name());
        }
        const std::optional<std::string> given = first_word_after(app, argc, argv);
        fmt::print(stderr, "cachewise: error: {} {}{} (expected {})\n", known[0]->get_name(),
                   given ? "has no subcommand \"" : "needs a subcommand",
                   given ? *given + "\"" : std::string(), in_words(names));
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

// The options every command takes, before or after the command's name: the
// key table's through `flags`, checked once parsing is done; the plain ones
// straight into `global`.
void
add_global_options(CLI::App& app, Settings& global, FlagValues& flags)
{
    add_setting_option(app, Key::rules, flags);
    add_setting_option(app, Key::input_format, flags);
    app.add_flag("--strict", global.strict, "Exit with status 2 when any record is broken");
    add_setting_option(app, Key::format, flags);
    add_setting_option(app, Key::dynamic_fields, flags);
    app.add_option("-o,--output", global.output,
                   "Write the report to FILE instead of standard output, whole or not at all "
                   "(on an error FILE keeps its old content)")
        ->type_name("FILE");
    add_setting_option(app, Key::prices, flags);
    add_setting_option(app, Key::jobs, flags);
    app.add_flag("-q,--quiet", global.quiet,
                 "Do not list skipped records on standard error, nor draw the progress line");
    add_setting_option(app, Key::tokenize, flags);
    add_setting_option(app, Key::tokenizer_dir, flags);
    add_setting_option(app, Key::fail_on, flags);
    add_setting_option(app, Key::baseline, flags);
    add_setting_option(app, Key::max_regression, flags);
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
    // Made from the options themselves, so that none is left out.
    std::string globals;
    for (const auto* option : app.get_options()) {
        const std::string name = option->get_name();
        if (name == "--help" || name == "--version") {
            continue;
        }
        globals += (globals.empty() ? "" : ", ") + name;
    }
    for (auto* command : app.get_subcommands({})) {
        clean_help(*command);
        command->footer("Global options (before or after the command; see cachewise --help): " +
                        globals);
    }
    app.get_formatter()->label("REQUIRED", "(required)");
}

// The command the line names ("" for none; "config" for config show).
std::string
command_name(const CLI::App& app)
{
    for (const auto* sub : app.get_subcommands()) {
        return sub->get_name();
    }
    return {};
}

// Everything the command line can say, filled by CLI11.
struct CommandLine {
    Settings plain;   // the flags without a key: --strict, -q, -o, ...
    FlagValues flags; // the key table's flags, unchecked
    ChainOptions chain;
    AnalyzeOptions analyze;
    AuditOptions audit;
    LintCliOptions lint;
    SuggestCliOptions suggest;
    BenchCliOptions bench;
    ProbeCliOptions probe;
    TokensCliOptions tokens;
};

void
add_commands(CLI::App& app, CommandLine& line)
{
    add_global_options(app, line.plain, line.flags);
    add_chain_command(app, line.chain);
    add_analyze_command(app, line.analyze, line.flags);
    add_audit_command(app, line.audit, line.flags);
    add_lint_command(app, line.lint, line.flags);
    add_suggest_command(app, line.suggest, line.flags);
    add_bench_command(app, line.bench);
    add_probe_command(app, line.probe);
    add_tokens_command(app, line.tokens);
    auto* config = app.add_subcommand(
        "config", "Show the project configuration (.cachewise.json) and its origins");
    config->add_subcommand("show", "Print every setting and where it came from")
        ->require_subcommand(0);
    config->require_subcommand(1);
    finish_help(app);
}

int
dispatch(const CLI::App& app, const Settings& settings, const CommandLine& line)
{
    using Run = std::function<int()>;
    const std::array<std::pair<std::string_view, Run>, 9> commands = {{
        {"config", [&] { return run_config_show(settings); }},
        {"lint", [&] { return run_lint(settings, line.lint); }},
        {"suggest", [&] { return run_suggest(settings, line.suggest); }},
        {"bench", [&] { return run_bench_prefill(settings, line.bench); }},
        {"tokens", [&] { return run_tokens(settings, line.tokens); }},
        {"chain", [&] { return run_chain(settings, line.chain); }},
        {"analyze", [&] { return run_analyze(settings, line.analyze); }},
        {"audit", [&] { return run_audit(settings, line.audit); }},
        {"probe", [&] { return run_probe(settings, line.probe); }},
    }};
    for (const auto& [name, run] : commands) {
        if (name == settings.command) {
            return run();
        }
    }
    std::cout << app.help();
    return static_cast<int>(ExitCode::usage);
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
    CommandLine line;
    add_commands(app, line);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return parse_error_status(app, e, argc, argv);
    }
    try {
        // Every value checked here, before any input is read.
        const Settings settings = resolve_settings(line.plain, line.flags, command_name(app),
                                                   std::filesystem::current_path());
        check_output_not_input(settings.output, argc, argv);
        Output output(settings.output);
        return output.finish(dispatch(app, settings, line));
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
