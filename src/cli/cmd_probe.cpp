#include "cli/options.hpp"
#include "live/probe.hpp"
#include "report/probe_printer.hpp"
#include "util/error.hpp"
#include "util/format.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cmath>
#include <iostream>

namespace cachewise::cli {

void
add_probe_command(CLI::App& app, ProbeCliOptions& options)
{
    auto* cmd = app.add_subcommand(
        "probe", "Send a request to its provider N times and compare the cache usage with the "
                 "simulator's prediction (a dry run unless --yes)");
    cmd->add_option("FILE", options.file, "A request body or template (JSON)")->required();
    cmd->add_option("--var", options.vars, "Fill a template placeholder {{name}} (repeatable)")
        ->type_name("NAME=VALUE");
    cmd->add_option("--times", options.times, "Calls to make, in order (default 2)")
        ->type_name("N");
    cmd->add_flag("--yes", options.yes, "Send the calls; without it nothing is sent");
    cmd->add_flag("--keep-max-tokens", options.keep_max_tokens,
                  "Keep the body's output limit (default: 1 token, Responses 16)");
    cmd->add_flag("--diagnostics", options.diagnostics,
                  "Anthropic: ask for the provider's cache_miss_reason on each repeat");
    cmd->add_option("--base-url", options.base_url,
                    "Send to this server instead of the provider's (gateways, proxies, "
                    "compatible servers)")
        ->type_name("URL");
    cmd->add_option("--api-key-file", options.api_key_file,
                    "Read the API key from the first line of this file instead of the "
                    "environment")
        ->type_name("FILE");
    cmd->add_option("--record", options.record,
                    "Append each call as an exchange record that audit reads")
        ->type_name("FILE");
    cmd->add_option("--retries", options.retries,
                    "Retries on 429, 529 and 5xx, with backoff (default 3)")
        ->type_name("N");
    cmd->add_option("--retry-wait", options.retry_wait,
                    "Most seconds one call may spend waiting to retry (default 60)")
        ->type_name("SECONDS");
    cmd->add_option("--connect-timeout", options.connect_timeout,
                    "Seconds to wait for a connection (default 10)")
        ->type_name("SECONDS");
    cmd->add_option("--timeout", options.timeout, "Seconds one call may take (default 120)")
        ->type_name("SECONDS");
}

namespace {

std::chrono::milliseconds
seconds_option(const char* name, double seconds, double low, double high)
{
    if (!(seconds >= low && seconds <= high)) {
        throw Error(fmt::format("{} {}: expected {} to {} seconds", name, seconds, low, high));
    }
    return std::chrono::milliseconds(std::llround(seconds * 1000));
}

live::ProbeOptions
checked_options(const ProbeCliOptions& o)
{
    live::ProbeOptions p;
    p.file = o.file;
    for (const auto& v : o.vars) {
        const auto eq = v.find('=');
        if (eq == std::string::npos || eq == 0) {
            throw Error(fmt::format("--var \"{}\": expected NAME=VALUE", v));
        }
        p.vars[v.substr(0, eq)] = v.substr(eq + 1);
    }
    p.times = o.times;
    p.keep_max_tokens = o.keep_max_tokens;
    p.diagnostics = o.diagnostics;
    p.send = o.yes;
    p.base_url = o.base_url;
    p.api_key_file = o.api_key_file;
    p.record = o.record;
    if (o.retries < 0 || o.retries > 10) {
        throw Error(fmt::format("--retries {}: expected 0 to 10", o.retries));
    }
    p.retry.max_retries = o.retries;
    p.retry.max_total_wait = seconds_option("--retry-wait", o.retry_wait, 0, 3600);
    p.timeouts.connect = seconds_option("--connect-timeout", o.connect_timeout, 0.1, 600);
    p.timeouts.total = seconds_option("--timeout", o.timeout, 0.1, 3600);
    return p;
}

} // namespace

int
run_probe(const Settings& global, const ProbeCliOptions& options)
{
    const auto format = global.format.value;
    live::ProbeOptions probe_options = checked_options(options);
    TokenizerHook tokenizer(global);
    probe_options.count_exact = [&tokenizer](model::Request& r, const model::TextStore& texts) {
        (void)tokenizer.apply(r, texts);
    };
    const auto rules = global.load_rules();
    const Gate gate = global.gate(FailOn{});
    live::HttpClient client(probe_options.timeouts);
    const auto result = live::probe(probe_options, *rules, client);
    if (!result.unfilled.empty() && !global.quiet) {
        fmt::print(stderr, "cachewise: {} without --var sent as written\n",
                   count_noun(result.unfilled.size(), "placeholder"));
    }
    report::print_probe(result, format, std::cout);
    return gate_status(new_findings(result.findings, gate), gate);
}

} // namespace cachewise::cli
