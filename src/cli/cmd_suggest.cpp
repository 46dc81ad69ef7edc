#include "advise/lint.hpp"
#include "advise/rewrite.hpp"
#include "advise/source_map.hpp"
#include "advise/suggest.hpp"
#include "cli/options.hpp"
#include "cli/validators.hpp"
#include "live/exact_pin.hpp"
#include "report/request_json.hpp"
#include "util/atomic_file.hpp"
#include "util/error.hpp"
#include "util/escape.hpp"
#include "util/file.hpp"
#include "util/format.hpp"
#include "util/line_reader.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ostream.h>

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

// --write and --diff: every input file rewritten with the suggested markers,
// checked before anything is written; each target is replaced atomically.
void
write_rewrites(const SuggestCliOptions& options, const advise::Suggestion& suggestion, bool single)
{
    for (const auto& f : suggestion.families) {
        if (!f.placeable) {
            throw Error(fmt::format("--write and --diff place cache_control breakpoints, which "
                                    "{} does not take: it caches automatically",
                                    f.provider));
        }
    }
    const auto files = ingest::expand_inputs(options.inputs);
    std::error_code ec;
    const bool to_folder =
        options.write && *options.write != "-" && fs::is_directory(*options.write, ec);
    if (options.write && files.size() > 1 && !to_folder) {
        throw Error(fmt::format("--write {}: {} input files need --write DIR, an existing folder "
                                "that receives each rewritten file",
                                *options.write, files.size()));
    }
    if (options.write && !to_folder && options.write->back() == '/') {
        throw Error(fmt::format("--write {}: no such folder", *options.write));
    }
    std::map<std::string, std::string> rewritten; // target -> bytes, all made before any write
    for (const auto& file : files) {
        const std::string before = value_or_throw(read_file(file), "");
        const std::string after = advise::rewrite_input(file, before, suggestion, single);
        const std::string target =
            options.write ? write_target(*options.write, file, options.inputs, to_folder) : "";
        if (options.diff) {
            // The diff quotes the input's lines: escaped and redacted.
            std::cout << safe_lines(advise::unified_diff(
                before, after, file, options.write ? target : file + " (suggested)"));
        }
        if (options.write && !rewritten.emplace(target, after).second) {
            throw Error(fmt::format("--write {}: two inputs would be written to {}", *options.write,
                                    target));
        }
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

} // namespace

void
add_suggest_command(CLI::App& app, SuggestCliOptions& options)
{
    auto* cmd = app.add_subcommand(
        "suggest",
        "Place cache_control where it pays most, proven by replaying the log (or for one request)");
    cmd->add_option("INPUT", options.inputs, "An exchange log, or one request body or template")
        ->required();
    cmd->add_option("--model", options.model, "Treat the requests as this model")
        ->type_name("MODEL");
    cmd->add_option("--policy", options.policy,
                    "Replay a log with this cache instead of each request's provider's "
                    "(breakpoints are placed for anthropic and bedrock only)")
        ->type_name("NAME")
        ->check(one_of(std::vector<std::string>(std::begin(ruleset::k_provider_names),
                                                std::end(ruleset::k_provider_names))));
    cmd->add_option("--write", options.write,
                    "Write the input with the suggested markers (- for standard output)")
        ->type_name("OUT");
    cmd->add_flag("--diff", options.diff, "Print a unified diff of the rewrite");
    add_exact_token_options(*cmd, options.exact);
}

int
run_suggest(const GlobalOptions& global, const SuggestCliOptions& options)
{
    const auto rules = global.load_rules();
    const auto format = global.parsed_format();
    if (format != report::Format::text && format != report::Format::json) {
        throw Error(fmt::format("suggest: --format {} is not offered (text or json)",
                                report::to_string(format)));
    }
    if (options.write || options.diff) {
        keep_stdin(options.inputs); // read again for the rewrite
    }
    model::TextStore texts;
    ingest::LoadOptions load_options;
    load_options.text_store = &texts;
    load_options.model_override = options.model ? *options.model : global.config.model.value;
    std::vector<model::Request> requests;
    const int status =
        load_log(global, *rules, options.inputs, load_options, [&](model::Request&& r) {
            requests.push_back(std::move(r));
        }).status;
    if (status != 0) {
        return status < 0 ? 0 : status;
    }
    // One request without usage is a template: place by its stable prefix.
    const bool single = requests.size() == 1 && !requests.front().usage;
    const bool templates =
        std::none_of(requests.begin(), requests.end(),
                     [](const model::Request& r) { return r.usage.has_value(); });
    if ((options.write || options.diff) && !single && templates) {
        throw Error(fmt::format("--write and --diff take one template at a time ({} were given); "
                                "a log is rewritten whole",
                                requests.size()));
    }
    const std::vector<std::string> placeholders = global.config.placeholders.value.empty()
                                                      ? advise::LintOptions{}.placeholders
                                                      : global.config.placeholders.value;
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
    const auto suggestion = single ? advise::suggest_for_request(std::move(requests.front()), texts,
                                                                 *rules, placeholders)
                                   : advise::suggest_from_log(std::move(requests), texts, *rules,
                                                              options.policy.value_or(""));

    if (format == report::Format::json) {
        report::Json j;
        j["schema_version"] = 1;
        j["command"] = "suggest";
        j["mode"] = single ? "request" : "log";
        report::Json families = report::Json::array();
        for (const auto& f : suggestion.families) {
            const auto replay = [](const advise::Replay& r) {
                return report::Json{
                    {"cost_usd", r.cost_usd}, {"hit_rate", r.hit_rate()}, {"priced", r.priced}};
            };
            families.push_back(
                {{"example", f.example},
                 {"provider", f.provider},
                 {"placeable", f.placeable},
                 {"streams", f.streams},
                 {"requests", f.requests},
                 {"stable_head_segments", f.stable_head},
                 {"current", replay(f.current)},
                 {"suggested",
                  {{"placement", f.suggested.describe()}, {"replay", replay(f.suggested_replay)}}},
                 {"keeps_current", f.keeps_current},
                 {"note", f.note.empty() ? report::Json(nullptr) : report::Json(f.note)},
                 {"ideal_cost_usd", f.ideal_cost_usd}});
        }
        j["families"] = families;
        report::Json marks = report::Json::object();
        for (const auto& r : suggestion.requests) {
            report::Json list = report::Json::array();
            const auto it = suggestion.breakpoints.find(r.id);
            if (it != suggestion.breakpoints.end()) {
                for (const auto& b : it->second) {
                    list.push_back({{"path", r.segments[b.segment].path.str()},
                                    {"ttl", std::string(model::to_string(b.cache_control.ttl))},
                                    {"tokens", r.segments[b.segment].cumulative_tokens}});
                }
            }
            marks[r.id] = list;
        }
        j["breakpoints"] = marks;
        j["advice"] = suggestion.advice;
        if (!options.write && !options.diff) {
            std::cout << j.dump(2, ' ', false, report::Json::error_handler_t::replace) << "\n";
        }
    } else if (!(options.write && *options.write == "-") && !options.diff) {
        for (const auto& f : suggestion.families) {
            if (single) {
                const auto& r = suggestion.requests.front();
                fmt::print("cachewise suggest: {} ({}, stable prefix: {} segments)\n", r.id,
                           r.model, f.stable_head);
                const auto& marks = suggestion.breakpoints.at(r.id);
                if (!f.placeable) {
                    fmt::print("  no breakpoint to place: {} caches the prompt prefix "
                               "automatically; keep it byte-stable\n",
                               r.provider);
                } else if (marks.empty()) {
                    fmt::print(
                        "  no breakpoint: no stable boundary reaches the {} minimum of {} tokens\n",
                        r.model,
                        group_digits(rules->provider(r.provider).minimum_tokens(r.model).tokens));
                }
                for (const auto& b : marks) {
                    fmt::print("  breakpoint at {} ({}), prefix ≈{} tokens\n",
                               r.segments[b.segment].path.str(),
                               model::to_string(b.cache_control.ttl),
                               group_digits(r.segments[b.segment].cumulative_tokens));
                }
                continue;
            }
            fmt::print("family {} · {} request{} in {} stream{} · stable head {} segments\n",
                       f.example, f.requests, f.requests == 1 ? "" : "s", f.streams.size(),
                       f.streams.size() == 1 ? "" : "s", f.stable_head);
            if (!f.note.empty()) {
                fmt::print("  {}\n", f.note);
            } else if (!f.placeable) {
                fmt::print("  {} caches the prompt prefix automatically: no breakpoints to place; "
                           "the replay is its simulated cache\n",
                           f.provider);
            }
            // Unpriced is "unpriced", never 0.000000 USD.
            const auto money = [&](double v) {
                return f.current.priced ? fmt::format("{:.6f} USD", v) : std::string("unpriced");
            };
            fmt::print("  current    {:>16} · hit rate {:.1f}%  (the requests' own breakpoints)\n",
                       money(f.current.cost_usd), 100 * f.current.hit_rate());
            fmt::print("  suggested  {:>16} · hit rate {:.1f}%  {}\n",
                       money(f.suggested_replay.cost_usd), 100 * f.suggested_replay.hit_rate(),
                       !f.placeable      ? "(nothing to place)"
                       : f.keeps_current ? "the current placement: it is the best found"
                                         : f.suggested.describe());
            fmt::print("  ideal      {:>16} (lower bound: every shared token read)\n",
                       money(f.ideal_cost_usd));
            const double saved = f.current.cost_usd - f.suggested_replay.cost_usd;
            if (f.current.priced) {
                fmt::print("  saves      {:>16} ({:.1f}%) on input tokens\n", money(saved),
                           f.current.cost_usd > 0 ? 100 * saved / f.current.cost_usd : 0.0);
            } else {
                fmt::print("  saves      unpriced (a model of this family has no price in "
                           "rules/pricing.json)\n");
            }
        }
        for (const auto& a : suggestion.advice) {
            fmt::print("advice: {}\n", safe_text(a));
        }
    }

    if (options.write || options.diff) {
        write_rewrites(options, suggestion, single);
    }
    return 0;
}

} // namespace cachewise::cli
