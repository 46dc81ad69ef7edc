#pragma once

#include "cli/exact_tokens.hpp"
#include "cli/gate.hpp"
#include "cli/settings.hpp"
#include "ingest/loader.hpp"
#include "report/format.hpp"
#include "ruleset/rules.hpp"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace cachewise::cli {

struct ChainOptions {
    std::vector<std::string> inputs;
    std::optional<std::string> request;
    ExactTokenCliOptions exact; // requests without usage: counts pinned to the provider's
};

void add_chain_command(CLI::App& app, ChainOptions& options);
int run_chain(const Settings& global, const ChainOptions& options);

struct AnalyzeOptions {
    std::vector<std::string> inputs;
    std::size_t top = 10;
    bool details = false;
};

void add_analyze_command(CLI::App& app, AnalyzeOptions& options, FlagValues& flags);
int run_analyze(const Settings& global, const AnalyzeOptions& options);

struct AuditOptions {
    std::vector<std::string> inputs;
    std::optional<std::string> since;
    std::optional<std::string> until;
    std::optional<std::string> by;
    bool details = false;
    std::optional<std::string> model;            // reference open model for compute saved
    std::optional<std::string> prefill_profile;  // a profile from bench prefill --out
    std::optional<std::string> gpu;              // or a GPU to model it on
    std::optional<std::string> policy;           // simulate this provider's or engine's cache
    std::optional<std::int64_t> block_size;      // engine block / page, DeepSeek unit
    std::optional<std::int64_t> capacity_blocks; // engine KV capacity
    std::optional<std::int64_t> interval_tokens; // DeepSeek persistence interval
};

void add_audit_command(CLI::App& app, AuditOptions& options, FlagValues& flags);
int run_audit(const Settings& global, const AuditOptions& options);

// Prints the load errors to stderr (text) and decides the exit status shared
// by every command that reads logs: 2 when nothing usable was read, or when
// --strict and any record was broken.
int load_exit_status(const Settings& global, const std::vector<std::string>& inputs,
                     const ingest::LoadSummary& summary);

// Reads the logs a command was given (the global --input-format applies),
// reports broken records and returns the summary with the exit status the
// loading calls for (0 when the command can go on).
struct LoadedLog {
    ingest::LoadSummary summary;
    int status = 0; // -1: nothing in --since/--until, said so; the command exits 0
};
LoadedLog load_log(const Settings& global, const ruleset::Rules& rules,
                   const std::vector<std::string>& inputs, ingest::LoadOptions options,
                   const ingest::Loader::RequestCallback& on_request);
// Refuses "-" given twice; with `keep`, reads standard input into memory now,
// for a command that reads its inputs twice (lint, suggest --write).
void keep_stdin(const std::vector<std::string>& inputs, bool keep = true);
void report_load_errors(const Settings& global, const ingest::LoadSummary& summary);

struct LintCliOptions {
    std::vector<std::string> inputs;
    bool exact_tokens = false; // count undecided prefixes with the provider's endpoint
    std::optional<std::string> base_url;
    std::optional<std::string> api_key_file;
};
void add_lint_command(CLI::App& app, LintCliOptions& options, FlagValues& flags);
int run_lint(const Settings& global, const LintCliOptions& options);

int run_config_show(const Settings& settings);

struct SuggestCliOptions {
    std::vector<std::string> inputs;
    std::optional<std::string> write;
    std::optional<std::string> policy; // replay with this cache instead of the provider's
    bool diff = false;
    ExactTokenCliOptions exact; // one request or template: counts pinned to the provider's
};
void add_suggest_command(CLI::App& app, SuggestCliOptions& options, FlagValues& flags);
int run_suggest(const Settings& global, const SuggestCliOptions& options);

// Prints findings as SARIF or GitHub annotations when the format asks for
// them; false for the other formats. Annotations are made for the findings
// the gate's --baseline does not hold (SARIF keeps them all: code scanning
// matches them by fingerprint itself).
bool print_findings_format(const Settings& settings, const std::vector<analysis::Finding>& findings,
                           const Gate& gate);
// After a text report, with --baseline: how many findings are new since it,
// and which (rule, place, request), so that a reader sees what the gate
// counts. Nothing without a baseline or in other formats.
void print_baseline_summary(const Settings& settings,
                            const std::vector<analysis::Finding>& findings,
                            const std::vector<analysis::Finding>& counted, const Gate& gate);

struct BenchCliOptions {
    std::string model;
    std::string tokens = "512,1k,4k,16k,32k";
    std::string dtype = "bf16";
    int layers = 1;
    int repeats = 10;
    std::optional<std::string> gpu;
    std::optional<std::string> out;
};
void add_bench_command(CLI::App& app, BenchCliOptions& options);
int run_bench_prefill(const Settings& global, const BenchCliOptions& options);

// probe: send a body N times (live checks; a dry run unless --yes).
struct ProbeCliOptions {
    std::string file;
    std::vector<std::string> vars; // NAME=VALUE
    int times = 2;
    bool yes = false;
    bool keep_max_tokens = false;
    bool diagnostics = false;
    std::optional<std::string> base_url;
    std::optional<std::string> api_key_file;
    std::optional<std::string> record;
    int retries = 3;
    double retry_wait = 60;
    double connect_timeout = 10;
    double timeout = 120;
};
void add_probe_command(CLI::App& app, ProbeCliOptions& options);
int run_probe(const Settings& global, const ProbeCliOptions& options);
// --tokenize (on by default): wraps a request callback so that requests of
// models with a public tokenizer get exact counts first; keeps its own text
// store when the command has none. notes() says which vocabularies were
// wanted and not found, so that those requests kept their estimates.
class TokenizerHook {
public:
    TokenizerHook(const Settings& global, ingest::LoadOptions& options);
    // Without a load: apply() counts requests one by one (lint).
    explicit TokenizerHook(const Settings& global);
    ~TokenizerHook();
    TokenizerHook(const TokenizerHook&) = delete;
    TokenizerHook& operator=(const TokenizerHook&) = delete;
    // With more than one job the constructor has the parse workers count
    // (LoadOptions::on_parsed) and wrap() returns `next` itself. With one,
    // the callback wrap() returns counts on a thread of its own and calls
    // `next` from it, in order. finish() waits for the last request (call
    // it when the load returns), throws the first error of that thread and
    // gathers the workers' tallies for notes().
    [[nodiscard]] ingest::Loader::RequestCallback wrap(ingest::Loader::RequestCallback next);
    void finish();
    // When the load failed: waits for the request being counted, drops the
    // others, so that no callback outlives what it refers to.
    void abandon() noexcept;
    [[nodiscard]] std::vector<std::string> notes() const;
    // Counts one request whose text is in `texts`; the name of the tokenizer
    // it was counted with, empty when it keeps its estimates.
    std::string apply(model::Request& request, const model::TextStore& texts);
    // The tokens of `text` by `model`'s tokenizer, when it has one at hand.
    std::optional<std::int64_t> count_text(const std::string& model, std::string_view text);

private:
    struct State;
    std::unique_ptr<State> m_state; // null with --tokenize=off
};

// `cachewise tokens`: exact token counts (src/tokenize/).
struct TokensCliOptions {
    std::string input;
    std::optional<std::string> tokenizer;
    std::optional<std::string> model;
    bool ids = false;
    bool request = false;
};
void add_tokens_command(CLI::App& app, TokensCliOptions& options);
int run_tokens(const Settings& global, const TokensCliOptions& options);

std::string version_text();

} // namespace cachewise::cli
