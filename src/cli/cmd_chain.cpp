#include "cli/options.hpp"
#include "live/exact_pin.hpp"
#include "report/chain_printer.hpp"
#include "util/error.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <iostream>

namespace cachewise::cli {

void
add_chain_command(CLI::App& app, ChainOptions& options)
{
    auto* cmd = app.add_subcommand("chain", "Print each request's segments in render order with "
                                            "tokens, breakpoints and identity chain");
    cmd->add_option("LOG", options.inputs,
                    "Log files or directories (walked recursively); - reads standard input")
        ->required();
    cmd->add_option("--request", options.request,
                    "Only the request with this id, or the N-th request (1-based)")
        ->type_name("ID|N");
    add_exact_token_options(*cmd, options.exact);
}

int
run_chain(const Settings& global, const ChainOptions& options)
{
    const auto rules = global.load_rules();
    ingest::LoadOptions load_options;
    load_options.format = global.input_format.value;
    const auto format = global.format.value;
    const auto printer = report::make_chain_printer(format, std::cout);

    std::optional<std::uint64_t> index;
    if (options.request && !options.request->empty() &&
        std::all_of(options.request->begin(), options.request->end(),
                    [](char c) { return c >= '0' && c <= '9'; })) {
        // A number too large for any log is an id no request has, not a crash.
        std::uint64_t n = 0;
        const auto& text = *options.request;
        if (std::from_chars(text.data(), text.data() + text.size(), n).ec == std::errc()) {
            index = n;
        }
    }
    std::uint64_t seen = 0;
    std::uint64_t printed = 0;
    live::HttpClient client;
    auto counter = make_exact_counter(options.exact, client, "chain");
    TokenizerHook tokenizer(global, load_options);
    ingest::Loader loader(*rules, load_options);
    const auto summary = loader.load(options.inputs, tokenizer.wrap([&](model::Request&& request) {
        ++seen;
        if (options.request && request.id != *options.request && (!index || *index != seen)) {
            return;
        }
        ++printed;
        // Reported usage already calibrates a logged request; the others get counts.
        if (counter && !request.usage && request.prompt_logged && request.file != "-" &&
            !request.file.empty()) {
            live::pin_exact_tokens(request, live::body_json_of(request), *counter);
        }
        std::optional<account::ReportedSplit> reported;
        if (request.usage && request.usage->schema == model::UsageSchema::inclusive) {
            reported = account::reported_split(*request.usage);
        }
        printer->request(request, reported);
    }));
    if (counter && !global.quiet) {
        fmt::print(stderr, "cachewise: {}\n", exact_summary(*counter));
    }
    printer->finish(summary);
    std::cout.flush();
    report_load_errors(global, summary);
    const int status = load_exit_status(global, summary);
    if (status != 0) {
        return status < 0 ? 0 : status;
    }
    if (options.request && printed == 0) {
        throw Error(fmt::format("--request {}: no such request ({} requests read)",
                                *options.request, seen));
    }
    return 0;
}

} // namespace cachewise::cli
