#include "advise/lint.hpp"
#include "advise/rewrite.hpp"
#include "advise/suggest.hpp"
#include "cli/options.hpp"
#include "cli/setting_options.hpp"
#include "cli/validators.hpp"
#include "live/exact_pin.hpp"
#include "report/suggest_printer.hpp"
#include "util/atomic_file.hpp"
#include "util/error.hpp"
#include "util/escape.hpp"
#include "util/file.hpp"
#include "util/format.hpp"
#include "util/line_reader.hpp"
#include "util/source_map.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ostream.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <sstream>

namespace cachewise::cli {

namespace {

namespace fs = std::filesystem;

// Where --write puts the rewrite of `file`: OUT itself for one input, or,
// when OUT is a folder, the file's path under the folder it was found in (its
// name for a file given by itself).
std::string
write_target(const std::string& out, const std::string& file,
             const std::vector<std::string>& inputs, bool to_folder)
{
    if (!to_folder) {
        return out;
    }
    for (const auto& input : inputs) {
        std::error_code ec;
        if (input != "-" && fs::is_directory(input, ec)) {
            const auto relative = fs::path(file).lexically_relative(input);
            if (!relative.empty() && *relative.begin() != "..") {
                return (fs::path(out) / relative).string();
            }
        }
    }
    return (fs::path(out) / fs::path(file == "-" ? "stdin.json" : file).filename()).string();
}

// Families of providers that cache automatically are left as they are (no
// request of theirs gets a marker), said on stderr; only an input with none
// other is refused.
void
note_automatic_families(const advise::Suggestion& suggestion, bool quiet)
{
    std::vector<std::string> automatic;
    for (const auto& f : suggestion.families) {
        if (!f.placeable) {
            automatic.push_back(fmt::format(
                "{} family ({}) is left as it is: {}", f.provider,
                count_noun(f.requests, "request"),
                f.note.empty() ? "its provider caches automatically and takes no breakpoints"
                               : f.note));
        }
    }
    if (!automatic.empty() && automatic.size() == suggestion.families.size()) {
        const auto& first = suggestion.families.front();
        // A family with a note takes breakpoints suggest does not place
        // (OpenAI's GPT-5.6 explicit mode): the note says so, not "automatic".
        throw Error(
            first.note.empty()
                ? fmt::format("--write and --diff place cache_control breakpoints, which "
                              "{} does not take: it caches automatically",
                              first.provider)
                : fmt::format("--write and --diff do not place these breakpoints: {}", first.note));
    }
    for (const auto& family : automatic) {
        if (!quiet) {
            fmt::print(stderr, "cachewise: note: the {}\n", family);
        }
    }
}

// --write and --diff: every input file rewritten with the suggested markers,
// checked before anything is written; each target is replaced atomically.
void
write_rewrites(const SuggestCliOptions& options, const advise::Suggestion& suggestion, bool single,
               bool quiet)
{
    note_automatic_families(suggestion, quiet);
    const auto files = ingest::expand_inputs(options.inputs);
    std::error_code ec;
    const bool to_folder =
        options.write && *options.write != "-" && fs::is_directory(*options.write, ec);
    if (options.write && files.size() > 1 && !to_folder) {
        throw Error(fmt::format("--write {}: {} need --write DIR, an existing folder "
                                "that receives each rewritten file",
                                *options.write, count_noun(files.size(), "input file")));
    }
    if (options.write && !to_folder && options.write->back() == '/') {
        throw Error(fmt::format("--write {}: no such folder", *options.write));
    }
    std::map<std::string, std::string> rewritten; // target -> bytes, all made before any write
    std::vector<std::string> by_hand; // every input that cannot be rewritten, not only the first
    for (const auto& file : files) {
        const std::string before = value_or_throw(read_file(file), "");
        std::string after;
        try {
            after = advise::rewrite_input(file, before, suggestion, single);
        } catch (const Error& e) {
            by_hand.emplace_back(e.what());
            continue;
        }
        const std::string target =
            options.write ? write_target(*options.write, file, options.inputs, to_folder) : "";
        if (options.diff) {
            report::print_diff(advise::unified_diff(before, after, file,
                                                    options.write ? target : file + " (suggested)"),
                               std::cout);
        }
        if (after == before && !quiet) {
            // Not an empty diff without a word: the suggestion keeps it as it is.
            fmt::print(stderr,
                       "cachewise: {}: nothing to change: the suggestion keeps its "
                       "breakpoints as they are{}\n",
                       safe_text(file), options.diff ? " (suggest without --diff says why)" : "");
        }
        if (options.write && !rewritten.emplace(target, after).second) {
            throw Error(fmt::format("--write {}: two inputs would be written to {}", *options.write,
                                    target));
        }
    }
    if (!by_hand.empty()) {
        // One line each; the last is the command's error. Nothing is written
        // while any input needs a hand.
        for (std::size_t i = 0; i + 1 < by_hand.size(); ++i) {
            fmt::print(stderr, "cachewise: error: {}\n", safe_text(by_hand[i]));
        }
        throw Error(by_hand.back());
    }
    for (const auto& [target, bytes] : rewritten) {
        if (target == "-") {
            std::cout << bytes;
            continue;
        }
        if (to_folder) {
            fs::create_directories(fs::path(target).parent_path(), ec);
        }
        value_or_throw(write_file_atomically(target, bytes), "--write");
    }
}

// Placement works on prompts: a log of responses alone (a saved stream) has
// nothing to place, which must not read as "no advice".
void
require_prompts(const std::vector<model::Request>& requests, const std::vector<std::string>& inputs)
{
    if (std::any_of(requests.begin(), requests.end(),
                    [](const model::Request& r) { return r.prompt_logged; })) {
        return;
    }
    throw Error(fmt::format("{}: no prompt is logged in {} (a stream or a response log holds "
                            "only the responses and their usage); suggest places breakpoints "
                            "from the prompts",
                            safe_text(fmt::format("{}", fmt::join(inputs, ", "))),
                            count_noun(requests.size(), "request")));
}

} // namespace

void
add_suggest_command(CLI::App& app, SuggestCliOptions& options, FlagValues& flags)
{
    auto* cmd = app.add_subcommand(
        "suggest",
        "Place cache_control where it pays most, proven by replaying the log (or for one request)");
    cmd->add_option("INPUT", options.inputs, "An exchange log, or one request body or template")
        ->required();
    add_setting_option(*cmd, Key::model, flags);
    cmd->add_option("--policy", options.policy,
                    "Replay a log with this cache instead of each request's provider's "
                    "(breakpoints are placed for anthropic and bedrock only)")
        ->type_name("NAME")
        ->check(policy_name());
    cmd->add_option("--write", options.write,
                    "Write the input with the suggested markers (- for standard output)")
        ->type_name("OUT");
    cmd->add_flag("--diff", options.diff, "Print a unified diff of the rewrite");
    add_exact_token_options(*cmd, options.exact);
}

int
run_suggest(const Settings& global, const SuggestCliOptions& options)
{
    const auto rules = global.load_rules();
    const auto format = global.format.value;
    if (options.write || options.diff) {
        keep_stdin(options.inputs); // read again for the rewrite
    }
    model::TextStore texts;
    ingest::LoadOptions load_options;
    load_options.text_store = &texts;
    load_options.model_override = global.model.value;
    std::vector<model::Request> requests;
    const int status =
        load_log(global, *rules, options.inputs, load_options, [&](model::Request&& r) {
            requests.push_back(std::move(r));
        }).status;
    if (status != 0) {
        return status < 0 ? 0 : status;
    }
    require_prompts(requests, options.inputs);
    // One request without usage is a template: place by its stable prefix.
    const bool single = requests.size() == 1 && !requests.front().usage;
    const bool templates =
        std::none_of(requests.begin(), requests.end(),
                     [](const model::Request& r) { return r.usage.has_value(); });
    if ((options.write || options.diff) && !single && templates) {
        throw Error(fmt::format("--write and --diff take one template at a time ({} were given); "
                                "a log is rewritten whole",
                                group_count(requests.size())));
    }
    const std::vector<std::string> placeholders = global.placeholder_patterns();
    live::HttpClient client;
    auto counter = make_exact_counter(options.exact, client, "suggest");
    if (counter) {
        if (!single) {
            throw Error("suggest --exact-tokens: applies to one request body or template; a "
                        "log's tokens are calibrated to its reported usage");
        }
        auto& r = requests.front();
        if (!live::pin_exact_tokens(r, live::body_json_of(r), *counter)) {
            throw Error(fmt::format("suggest --exact-tokens: {} has no token-counting endpoint "
                                    "for {} bodies",
                                    r.provider, model::to_string(r.format)));
        }
        if (!global.quiet) {
            fmt::print(stderr, "cachewise: {}\n", exact_summary(*counter));
        }
    }
    if (single) {
        // Its placement turns on the minimum: say when that is assumed.
        if (const auto warning = advise::unlisted_model_warning(*rules, requests.front());
            !warning.empty()) {
            fmt::print(stderr, "cachewise: warning: {}\n", safe_text(warning));
        }
    }
    const auto suggestion = single ? advise::suggest_for_request(std::move(requests.front()), texts,
                                                                 *rules, placeholders)
                                   : advise::suggest_from_log(std::move(requests), texts, *rules,
                                                              options.policy.value_or(""));

    // The report, unless standard output carries the rewrite (JSON: unless
    // anything is rewritten).
    const bool rewrite_on_stdout = options.write && *options.write == "-";
    const bool shown =
        !options.diff && (format == report::Format::json ? !options.write : !rewrite_on_stdout);
    if (shown) {
        report::SuggestReport report{suggestion, single, 0};
        if (single) {
            const auto& r = suggestion.requests.front();
            report.minimum_tokens = rules->provider(r.provider).minimum_tokens(r.model).tokens;
            report.band = rules->tokens.error_band();
        }
        report::print_suggestion(report, format, std::cout);
    }
    if (options.write || options.diff) {
        write_rewrites(options, suggestion, single, global.quiet);
    }
    return 0;
}

} // namespace cachewise::cli
