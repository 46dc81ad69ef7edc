#include "account/auditor.hpp"
#include "account/expected_basis.hpp"
#include "advise/suggest.hpp"
#include "analysis/rule_catalogue.hpp"
#include "cli/disabled_rules.hpp"
#include "cli/options.hpp"
#include "cli/request_watchers.hpp"
#include "cli/setting_options.hpp"
#include "cli/validators.hpp"
#include "prefill/modelled.hpp"
#include "report/audit_printer.hpp"
#include "report/diagnosis_printer.hpp"
#include "report/printable.hpp"
#include "util/error.hpp"
#include "util/file.hpp"
#include "util/time.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <string>

namespace cachewise::cli {

namespace {

// --since/--until: an RFC 3339 time or a date (midnight UTC).
Timestamp
parse_bound(const std::string& text, const char* option)
{
    if (text.size() == 10) {
        return value_or_throw(parse_rfc3339(text + "T00:00:00Z"), option);
    }
    return value_or_throw(parse_rfc3339(text), option);
}

// What --baseline and --max-regression judged, for the JSON output.
std::optional<report::GateSummary>
gate_summary(const Gate& gate, std::size_t new_count, std::optional<double> hit_rate)
{
    if (gate.baseline == nullptr) {
        return std::nullopt;
    }
    return report::GateSummary{gate.baseline->path, new_count, gate.baseline->hit_rate,
                               gate.max_regression, regression_message(gate, hit_rate).has_value()};
}

// A --max-regression failure as a GitHub error annotation: the job's log
// says why it failed beside the findings' annotations.
void
annotate_regression(report::Format format, const Gate& gate, std::optional<double> hit_rate)
{
    if (format != report::Format::github) {
        return;
    }
    if (auto message = regression_message(gate, hit_rate)) {
        std::string data; // workflow-command data escapes % (the message has no CR or LF)
        for (const char c : *message) {
            data += c == '%' ? std::string("%25") : std::string(1, c);
        }
        fmt::print("::error title=cachewise --max-regression::{}\n", data);
    }
}

// --since and --until, checked: the window is [since, until).
void
set_window(const AuditOptions& options, ingest::LoadOptions& load_options)
{
    if (options.since) {
        load_options.since = parse_bound(*options.since, "--since");
    }
    if (options.until) {
        load_options.until = parse_bound(*options.until, "--until");
    }
    if (load_options.since && load_options.until && !(*load_options.since < *load_options.until)) {
        throw Error(fmt::format("--since {} is not before --until {}: no request could be in "
                                "[since, until)",
                                *options.since, *options.until));
    }
}

// The HTML report's "suggested placement" step: suggest's replay of the
// same requests, summed over the template families that have a price.
report::PlacementReplay
replay_placement(std::vector<model::Request> requests, const model::TextStore& texts,
                 const ruleset::Rules& rules, std::string_view policy)
{
    report::PlacementReplay replay;
    const auto suggestion = advise::suggest_from_log(std::move(requests), texts, rules, policy);
    for (const auto& family : suggestion.families) {
        if (family.current.priced && family.suggested_replay.priced) {
            replay.current_usd += family.current.cost_usd;
            replay.suggested_usd += family.suggested_replay.cost_usd;
            ++replay.families;
        }
    }
    return replay;
}

// --model with --prefill-profile or --gpu: the compute a cache read saves,
// on an open model as a reference.
void
add_compute_saved(account::AuditOptions& audit, const ruleset::Rules& rules,
                  const AuditOptions& options)
{
    if (options.model) {
        const auto* shape = rules.find_model(*options.model);
        if (shape == nullptr) {
            throw Error(fmt::format("--model: unknown model \"{}\" (see rules/models.json)",
                                    *options.model));
        }
        audit.compute.model = shape;
        if (options.prefill_profile) {
            const std::string text =
                value_or_throw(read_file(*options.prefill_profile), "--prefill-profile");
            audit.compute.profile = value_or_throw(prefill::Profile::from_json(text),
                                                   "--prefill-profile " + *options.prefill_profile);
        } else if (options.gpu) {
            const auto* gpu = rules.find_gpu(*options.gpu);
            if (gpu == nullptr) {
                throw Error(
                    fmt::format("--gpu: unknown GPU \"{}\" (see rules/gpus.json)", *options.gpu));
            }
            audit.compute.profile =
                prefill::modelled_profile(*shape, *gpu, true, rules.assumed_utilization.value,
                                          {512, 2048, 8192, 32768, 131072});
        } else {
            throw Error("--model needs --prefill-profile FILE or --gpu NAME for the GPU time");
        }
    } else if (options.prefill_profile || options.gpu) {
        throw Error("--prefill-profile and --gpu need --model M");
    }
}

// The simulator options and the caches that read them: one given for caches
// that will not run would change nothing, silently.
struct EngineOption {
    const char* flag;
    bool given;
    std::vector<std::string> policies;
};

std::vector<EngineOption>
engine_options(const AuditOptions& options)
{
    return {{"--block-size", options.block_size.has_value(), {"vllm", "sglang", "deepseek"}},
            {"--capacity-blocks", options.capacity_blocks.has_value(), {"vllm", "sglang"}},
            {"--interval-tokens", options.interval_tokens.has_value(), {"deepseek"}}};
}

// A forced --policy that does not take an option given is a usage error.
void
check_engine_options(const AuditOptions& options)
{
    if (!options.policy) {
        return;
    }
    for (const auto& o : engine_options(options)) {
        if (o.given &&
            std::find(o.policies.begin(), o.policies.end(), *options.policy) == o.policies.end()) {
            throw Error(fmt::format("{} applies to the {} caches, not to --policy {}", o.flag,
                                    fmt::join(o.policies, ", "), *options.policy));
        }
    }
}

// Without --policy each request runs on its provider's cache: says so when no
// request ran on a cache that reads an option given.
void
note_unused_engine_options(const AuditOptions& options, const std::vector<std::string>& simulated)
{
    for (const auto& o : engine_options(options)) {
        const bool used = std::any_of(simulated.begin(), simulated.end(), [&](const auto& p) {
            return std::find(o.policies.begin(), o.policies.end(), p) != o.policies.end();
        });
        if (o.given && !used) {
            fmt::print(stderr,
                       "cachewise: {} changed nothing: no request ran on the {} caches (caches "
                       "simulated: {}); --policy NAME simulates every request with one\n",
                       o.flag, fmt::join(o.policies, ", "),
                       simulated.empty() ? "none" : fmt::format("{}", fmt::join(simulated, ", ")));
        }
    }
}

// A read the log does not explain (CW025) after a record the load skipped in
// the same file: that record may be the writer, so the finding says so.
void
note_skipped_writers(std::vector<analysis::Finding>& findings, const ingest::LoadSummary& load)
{
    for (auto& f : findings) {
        if (f.kind != analysis::rule::k_warmed_elsewhere || f.file.empty()) {
            continue;
        }
        const ingest::InputError* skipped = nullptr;
        for (const auto& e : load.errors) {
            if (e.file == f.file && e.line > 0 && e.line < f.line &&
                (skipped == nullptr || e.line > skipped->line)) {
                skipped = &e;
            }
        }
        if (skipped != nullptr) {
            f.message += fmt::format("; the broken record skipped at line {} of this file may "
                                     "have written it",
                                     skipped->line);
        }
    }
}

} // namespace

void
add_audit_command(CLI::App& app, AuditOptions& options, FlagValues& flags)
{
    auto* cmd = app.add_subcommand(
        "audit",
        "Simulate the provider's cache request by request, check the reported usage and price it");
    add_log_argument(*cmd, options.inputs);
    cmd->add_option("--since", options.since,
                    "Only requests started at or after T (RFC 3339 or YYYY-MM-DD)")
        ->type_name("T");
    cmd->add_option("--until", options.until,
                    "Only requests started before T (RFC 3339 or YYYY-MM-DD)")
        ->type_name("T");
    cmd->add_option("--by", options.by, "A table of totals by day, stream or model")
        ->type_name("day|stream|model")
        ->check(one_of({"day", "stream", "model"}));
    cmd->add_flag("--details", options.details,
                  "One line per request: reported and expected split, cost, findings");
    add_setting_option(*cmd, Key::window, flags);
    cmd->add_option("--model", options.model,
                    "Add compute saved, on this open model of rules/models.json (a reference for "
                    "API models)")
        ->type_name("M");
    cmd->add_option("--prefill-profile", options.prefill_profile,
                    "A profile from `bench prefill --out`")
        ->type_name("FILE");
    cmd->add_option("--gpu", options.gpu, "Or model the prefill on this GPU of rules/gpus.json")
        ->type_name("NAME");
    cmd->add_option("--policy", options.policy,
                    "Simulate every request with this cache instead of its provider's: "
                    "anthropic, bedrock, openai, deepseek, gemini, or the serving engines vllm "
                    "and sglang")
        ->type_name("NAME")
        ->check(policy_name());
    cmd->add_option("--block-size", options.block_size,
                    "Tokens per KV block (vllm, default 16) or page (sglang, default 1); tokens "
                    "per storage unit (deepseek, default 64)")
        ->type_name("N")
        ->check(at_least(1));
    cmd->add_option("--capacity-blocks", options.capacity_blocks,
                    "KV cache capacity in blocks for vllm and sglang (default: unbounded); the "
                    "least recently used blocks are evicted")
        ->type_name("N")
        ->check(at_least(1));
    cmd->add_option("--interval-tokens", options.interval_tokens,
                    "DeepSeek's fixed persistence interval (unpublished; default from rules)")
        ->type_name("N")
        ->check(at_least(1));
    add_setting_option(*cmd, Key::latency, flags);
    add_setting_option(*cmd, Key::disabled_rules, flags);
}

int
run_audit(const Settings& global, const AuditOptions& options)
{
    const auto rules = global.load_rules();
    const auto format = global.format.value;
    account::AuditOptions audit_options;
    audit_options.analyze.window_seconds = global.window.value.seconds;
    audit_options.analyze.threads = global.threads();
    audit_options.sim.visibility_latency_seconds = global.latency.value;
    audit_options.policy = options.policy.value_or("");
    audit_options.sim.block_size = options.block_size;
    audit_options.sim.capacity_blocks = options.capacity_blocks;
    audit_options.sim.interval_tokens = options.interval_tokens;

    check_engine_options(options);
    add_compute_saved(audit_options, *rules, options);

    model::TextStore texts;
    ingest::LoadOptions load_options;
    load_options.text_store = &texts;
    set_window(options, load_options);
    audit_options.windowed = load_options.since || load_options.until;
    audit_options.threads = global.threads();
    WatchedAnalysis run(global, *rules, audit_options.analyze, texts);
    if (const auto status = run.load(global, *rules, options.inputs, load_options)) {
        if (run.loaded.status < 0 && format == report::Format::csv) {
            // An empty window: the header of a table without rows.
            report::print_audit({}, run.loaded.summary, {.format = format, .by = options.by},
                                std::cout);
        }
        return *status;
    }
    const auto& load = run.loaded.summary;
    const auto& watch = run.watch;
    auto& analyzer = run.analyzer;
    std::optional<report::PlacementReplay> placement;
    if (format == report::Format::html) {
        placement =
            replay_placement(analyzer.requests().all(), texts, *rules, audit_options.policy);
    }
    auto result = account::audit(analyzer, *rules, audit_options);
    analyzer.release_requests();
    note_unused_engine_options(options, result.policies);
    note_skipped_writers(result.findings, load);
    result.findings.insert(result.findings.end(), watch.secrets.findings().begin(),
                           watch.secrets.findings().end());
    const std::set<std::string> off(global.disabled_rules.value.begin(),
                                    global.disabled_rules.value.end());
    std::size_t dropped = drop_disabled(result, off);
    report::make_printable(result.findings);
    auto diagnosis = watch.diagnoses.compare(result.analysis);
    dropped += drop_disabled(diagnosis.findings, off);
    note_disabled(dropped, off, global.quiet);
    std::vector<analysis::Finding> findings = result.findings;
    findings.insert(findings.end(), diagnosis.findings.begin(), diagnosis.findings.end());
    const Gate gate = global.gate(FailOn{});
    check_regression_gate(gate);
    if (gate.max_regression && gate.baseline != nullptr && !result.totals.hit_rate()) {
        throw Error("--max-regression: not judged: no request of this log reports usage, so "
                    "it has no hit rate to compare with the baseline's");
    }
    const auto counted = new_findings(findings, gate);
    annotate_regression(format, gate, result.totals.hit_rate());
    if (!print_findings_format(global, findings, gate)) {
        report::print_with_diagnosis(
            diagnosis, format,
            [&](std::ostream& out) {
                report::print_audit(result, load,
                                    {format, options.details, options.by, rules.get(), placement,
                                     account::expected_basis(result),
                                     gate_summary(gate, counted.size(), result.totals.hit_rate())},
                                    out);
            },
            std::cout);
        print_baseline_summary(global, findings, counted, gate);
    }
    return gate_status(counted, gate, result.totals.hit_rate());
}

} // namespace cachewise::cli
