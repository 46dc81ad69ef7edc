#include "analysis/analyzer.hpp"
#include "cli/options.hpp"
#include "cli/setting_options.hpp"
#include "live/exact_pin.hpp"
#include "report/chain_printer.hpp"
#include "util/error.hpp"
#include "util/format.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <iostream>
#include <set>
#include <string_view>

namespace cachewise::cli {

void
add_chain_command(CLI::App& app, ChainOptions& options)
{
    auto* cmd = app.add_subcommand(
        "chain", "Print each request's segments in render order with tokens, breakpoints and "
                 "identity chain; requests in start order, a prefix shared with an earlier "
                 "request at the same token positions as there (as analyze and audit count)");
    add_log_argument(*cmd, options.inputs);
    cmd->add_option("--request", options.request,
                    "Only the request with this id (as analyze and audit print it will do), or "
                    "the N-th in start order (1-based)")
        ->type_name("ID|N");
    add_exact_token_options(*cmd, options.exact);
}

namespace {

// --request N: a number too large for any log is an id no request has, not a
// crash.
std::optional<std::uint64_t>
request_number(const std::optional<std::string>& request)
{
    if (!request || request->empty() || !std::all_of(request->begin(), request->end(), [](char c) {
            return c >= '0' && c <= '9';
        })) {
        return std::nullopt;
    }
    std::uint64_t n = 0;
    if (std::from_chars(request->data(), request->data() + request->size(), n).ec != std::errc()) {
        return std::nullopt;
    }
    return n;
}

// An id as a text report prints it (relative to the folder its key names)
// ends the full id after a '/'.
bool
shortened_id_of(std::string_view full, std::string_view shown)
{
    return full.size() > shown.size() && full.ends_with(shown) &&
           full[full.size() - shown.size() - 1] == '/';
}

// The requests --request names: the one whose id it is, the N-th, or else
// the one whose id it ends as analyze and audit print it; an id that ends
// several is an error naming two of them.
std::set<std::size_t>
wanted_requests(const analysis::RequestStore& requests, const std::optional<std::string>& request)
{
    std::set<std::size_t> exact;
    std::set<std::size_t> shortened;
    if (!request) {
        return exact;
    }
    const auto number = request_number(request);
    for (std::size_t i = 0; i < requests.size(); ++i) {
        const std::string& id = requests.id(i);
        if (id == *request || (number && *number == i + 1)) {
            exact.insert(i);
        } else if (shortened_id_of(id, *request)) {
            shortened.insert(i);
        }
    }
    if (!exact.empty() || shortened.size() < 2) {
        return exact.empty() ? shortened : exact;
    }
    const auto second = std::next(shortened.begin());
    throw Error(fmt::format("--request {}: {} requests have ids that end so ({}, {}{}): give more "
                            "of the path",
                            *request, shortened.size(), requests.id(*shortened.begin()),
                            requests.id(*second), shortened.size() > 2 ? ", ..." : ""));
}

} // namespace

// The requests go through the analyzer first, as in analyze and audit: in
// start order, side calls on their own sub-stream, and the token positions
// of a prefix shared with the partner taken from the partner's counts, so
// that identical prefixes sit at identical positions in every command.
int
run_chain(const Settings& global, const ChainOptions& options)
{
    const auto rules = global.load_rules();
    const auto printer = report::make_chain_printer(global.format.value, std::cout);
    model::TextStore texts;
    ingest::LoadOptions load_options;
    load_options.text_store = &texts;
    analysis::Analyzer analyzer(
        *rules, {.window_seconds = global.window.value.seconds, .threads = global.threads()},
        texts);
    const LoadedLog loaded = load_log(global, *rules, options.inputs, load_options,
                                      [&](model::Request&& r) { analyzer.add(std::move(r)); });
    if (loaded.status < 0) {
        return 0;
    }
    (void)analyzer.finish();

    const auto& requests = analyzer.requests();
    if (requests.size() == 0 && loaded.status != 0) {
        return loaded.status; // the error said it all; no "0 requests printed" after it
    }
    const auto wanted = wanted_requests(requests, options.request);
    if (options.request && wanted.empty()) {
        // Before anything is printed: a failed run writes no report.
        throw Error(fmt::format("--request {}: no such request ({} read)", *options.request,
                                count_noun(requests.size(), "request")));
    }
    live::HttpClient client;
    auto counter = make_exact_counter(options.exact, client, "chain");
    for (std::size_t i = 0; i < requests.size(); ++i) {
        if (options.request && !wanted.contains(i)) {
            continue;
        }
        model::Request request = requests.get(i);
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
    }
    if (counter && !global.quiet) {
        fmt::print(stderr, "cachewise: {}\n", exact_summary(*counter));
    }
    printer->finish(loaded.summary);
    std::cout.flush();
    return loaded.status;
}

} // namespace cachewise::cli
