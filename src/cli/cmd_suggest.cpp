#include "advise/lint.hpp"
#include "advise/rewrite.hpp"
#include "advise/source_map.hpp"
#include "advise/suggest.hpp"
#include "cli/options.hpp"
#include "report/request_json.hpp"
#include "util/error.hpp"
#include "util/escape.hpp"
#include "util/file.hpp"
#include "util/format.hpp"
#include "util/line_reader.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

namespace cachewise::cli {

namespace {} // namespace

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
        ->check(CLI::IsMember(std::vector<std::string>(std::begin(ruleset::k_provider_names),
                                                       std::end(ruleset::k_provider_names))));
    cmd->add_option("--write", options.write,
                    "Write the input with the suggested markers (- for standard output)")
        ->type_name("OUT");
    cmd->add_flag("--diff", options.diff, "Print a unified diff of the rewrite");
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
    model::TextStore texts;
    ingest::LoadOptions load_options;
    load_options.text_store = &texts;
    load_options.model_override = options.model ? *options.model : global.config.model.value;
    std::vector<model::Request> requests;
    const auto [load, status] =
        load_log(global, *rules, options.inputs, load_options,
                 [&](model::Request&& r) { requests.push_back(std::move(r)); });
    if (status != 0) {
        return status;
    }
    // One request without usage is a template: place by its stable prefix.
    const bool single = requests.size() == 1 && !requests.front().usage;
    const std::vector<std::string> placeholders = global.config.placeholders.value.empty()
                                                      ? advise::LintOptions{}.placeholders
                                                      : global.config.placeholders.value;
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
            if (!f.placeable) {
                fmt::print("  {} caches the prompt prefix automatically: no breakpoints to place; "
                           "the replay is its simulated cache\n",
                           f.provider);
            }
            fmt::print(
                "  current    {:>12} USD · hit rate {:.1f}%  (the requests' own breakpoints)\n",
                fmt::format("{:.6f}", f.current.cost_usd), 100 * f.current.hit_rate());
            fmt::print("  suggested  {:>12} USD · hit rate {:.1f}%  {}\n",
                       fmt::format("{:.6f}", f.suggested_replay.cost_usd),
                       100 * f.suggested_replay.hit_rate(), f.suggested.describe());
            fmt::print("  ideal      {:>12} USD (lower bound: every shared token read)\n",
                       fmt::format("{:.6f}", f.ideal_cost_usd));
            const double saved = f.current.cost_usd - f.suggested_replay.cost_usd;
            fmt::print("  saves      {:>12} USD ({:.1f}%) on input tokens{}\n",
                       fmt::format("{:.6f}", saved),
                       f.current.cost_usd > 0 ? 100 * saved / f.current.cost_usd : 0.0,
                       f.current.priced ? "" : " (some requests unpriced)");
        }
        for (const auto& a : suggestion.advice) {
            fmt::print("advice: {}\n", safe_text(a));
        }
    }

    if (options.write || options.diff) {
        if (options.inputs.size() != 1 || options.inputs.front() == "-") {
            throw Error("--write and --diff take exactly one input file");
        }
        const std::string& path = options.inputs.front();
        for (const auto& f : suggestion.families) {
            if (!f.placeable) {
                throw Error(fmt::format("--write and --diff place cache_control breakpoints, which "
                                        "{} does not take: it caches automatically",
                                        f.provider));
            }
        }
        const std::string before = value_or_throw(read_file(path), "");
        const std::string after = advise::rewrite_input(path, before, suggestion, single);
        if (options.diff) {
            // The diff quotes the input's lines: escaped and redacted.
            std::cout << safe_lines(advise::unified_diff(
                before, after, path, options.write ? *options.write : path + " (suggested)"));
        }
        if (options.write) {
            if (*options.write == "-") {
                std::cout << after;
            } else {
                std::ofstream out(*options.write, std::ios::binary);
                if (!out) {
                    throw Error(fmt::format("--write {}: cannot be written", *options.write));
                }
                out << after;
            }
        }
    }
    return 0;
}

} // namespace cachewise::cli
