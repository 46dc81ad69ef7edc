#include "report/suggest_printer.hpp"

#include "model/breakpoints.hpp"
#include "report/request_json.hpp"
#include "util/escape.hpp"
#include "util/format.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

namespace cachewise::report {

namespace {

Json
replay_json(const advise::Replay& r)
{
    return Json{{"cost_usd", r.cost_usd}, {"hit_rate", r.hit_rate()}, {"priced", r.priced}};
}

Json
family_json(const advise::FamilyAdvice& f)
{
    return {{"example", f.example},
            {"provider", f.provider},
            {"placeable", f.placeable},
            {"streams", f.streams},
            {"requests", f.requests},
            {"stable_head_segments", f.stable_head},
            {"current", replay_json(f.current)},
            {"reported", f.reported ? replay_json(*f.reported) : Json(nullptr)},
            {"suggested",
             {{"placement", f.suggested.describe()}, {"replay", replay_json(f.suggested_replay)}}},
            {"keeps_current", f.keeps_current},
            {"kept_untimed", f.kept_untimed},
            {"kept_single", f.kept_single},
            {"note", or_null(f.note)},
            {"ideal_cost_usd", f.ideal_cost_usd}};
}

void
print_json(const SuggestReport& report, std::ostream& out)
{
    const auto& suggestion = report.suggestion;
    Json j = json_document("suggest");
    j["mode"] = report.single ? "request" : "log";
    j["families"] = json_array(suggestion.families, family_json);
    Json marks = Json::object();
    for (const auto& r : suggestion.requests) {
        Json list = Json::array();
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
    out << j.dump(2, ' ', false, Json::error_handler_t::replace) << "\n";
}

// One request or template where no breakpoint is placed: none reaches the
// minimum, or the longest stable prefix is borderline (lint's CW012), and
// what the request has of its own stays.
void
print_none_placed(const SuggestReport& report, const advise::FamilyAdvice& f, std::ostream& out)
{
    const auto& r = report.suggestion.requests.front();
    const std::size_t head = std::min(f.stable_head, r.segments.size());
    const auto tokens =
        head > 0 ? static_cast<double>(r.segments[head - 1].cumulative_tokens) : 0.0;
    const auto minimum = static_cast<double>(report.minimum_tokens);
    if (tokens * (1 + report.band) >= minimum && tokens * (1 - report.band) < minimum) {
        fmt::print(out,
                   "  no breakpoint placed: the stable prefix is about {} tokens (±{:.0f}%: "
                   "{}–{}), borderline against the {} minimum of {}; count it with "
                   "--exact-tokens before marking it\n",
                   group_digits(static_cast<std::int64_t>(tokens)), report.band * 100,
                   group_digits(static_cast<std::int64_t>(tokens * (1 - report.band))),
                   group_digits(static_cast<std::int64_t>(tokens * (1 + report.band))), r.model,
                   group_digits(report.minimum_tokens));
    } else {
        fmt::print(out, "  no breakpoint: no stable boundary reaches the {} minimum of {} tokens\n",
                   r.model, group_digits(report.minimum_tokens));
    }
    if (r.auto_cache_control) {
        fmt::print(out, "  the request's top-level cache_control is left as it is\n");
    }
}

// One request or template: where its breakpoints go.
void
print_request(const SuggestReport& report, const advise::FamilyAdvice& f, std::ostream& out)
{
    const auto& r = report.suggestion.requests.front();
    fmt::print(out, "cachewise suggest: {} ({}, stable prefix: {})\n", r.id, r.model,
               count_noun(f.stable_head, "segment"));
    const auto& marks = report.suggestion.breakpoints.at(r.id);
    if (!f.placeable && !f.note.empty()) {
        fmt::print(out, "  no breakpoint placed: {}\n", f.note);
    } else if (!f.placeable) {
        fmt::print(out,
                   "  no breakpoint to place: {} caches the prompt prefix automatically; keep it "
                   "byte-stable\n",
                   r.provider);
    } else if (marks.empty() || f.keeps_current) {
        print_none_placed(report, f, out);
    }
    for (const auto& b : marks) {
        // OpenAI's breakpoints (GPT-5.6 and later) live 30 minutes, the only
        // TTL (rules §2.1); Anthropic's and Bedrock's carry their own.
        // A block the template marks already keeps its marker, even where
        // lint calls its prefix borderline: below the minimum it writes
        // nothing and costs nothing, above it it may be read.
        const auto& had = r.segments[b.segment].cache_control;
        const std::string own =
            f.keeps_current || !had ? std::string()
            : *had == b.cache_control
                ? std::string(" (marked already)")
                : fmt::format(" (marked already, {} before)", model::to_string(had->ttl));
        fmt::print(out, "  {} at {} ({}), prefix ≈{} tokens{}\n",
                   f.keeps_current ? "kept as it is: the request's own breakpoint" : "breakpoint",
                   r.segments[b.segment].path.str(),
                   r.provider == "openai" ? std::string_view("30m")
                                          : model::to_string(b.cache_control.ttl),
                   group_digits(r.segments[b.segment].cumulative_tokens), own);
    }
    // --write keeps a top-level cache_control: say where it caches.
    const auto at = model::automatic_breakpoint(r);
    if (at && r.auto_cache_control && f.placeable && !marks.empty() && !f.keeps_current) {
        fmt::print(out,
                   "  the top-level cache_control stays: the automatic breakpoint at {} ({}), "
                   "prefix ≈{} tokens\n",
                   r.segments[*at].path.str(), model::to_string(r.auto_cache_control->ttl),
                   group_digits(r.segments[*at].cumulative_tokens));
    }
}

// What the provider reported for the family, beside the simulation: a
// provider warmed by traffic the log does not hold reads more than the log
// explains, and then no replay's saving is one the user would see.
bool
warmed_outside(const advise::FamilyAdvice& f)
{
    return f.reported && f.reported->read > f.current.read && f.reported->priced &&
           f.current.priced && f.reported->cost_usd < f.suggested_replay.cost_usd;
}

template <typename Money>
void
print_reported(const advise::FamilyAdvice& f, const Money& money, std::ostream& out)
{
    if (!f.reported) {
        return;
    }
    fmt::print(out, "  reported   {:>16} · hit rate {}  (the provider's usage)\n",
               f.reported->priced ? money(f.reported->cost_usd) : std::string("unpriced"),
               format_percent(f.reported->hit_rate()));
    if (warmed_outside(f)) {
        fmt::print(out,
                   "  the provider read {} tokens more than the simulation of this log: it was "
                   "warmed outside it, and the replays below cost more than what was paid\n",
                   group_digits(f.reported->read - f.current.read));
    }
}

// A template family of a log: its current, suggested and ideal replays.
void
print_family(const advise::FamilyAdvice& f, std::ostream& out)
{
    fmt::print(out, "family {} · {} in {} · stable head {}\n", f.example,
               count_noun(f.requests, "request"), count_noun(f.streams.size(), "stream"),
               count_noun(f.stable_head, "segment"));
    if (!f.note.empty()) {
        fmt::print(out, "  {}\n", f.note);
    } else if (!f.placeable) {
        fmt::print(out,
                   "  {} caches the prompt prefix automatically: no breakpoints to place; the "
                   "replay is its simulated cache\n",
                   f.provider);
    }
    // Unpriced is "unpriced", never 0.000000 USD.
    const auto money = [&](double v) {
        return f.current.priced ? format_usd(v) + " USD" : std::string("unpriced");
    };
    // Output costs the same whatever the placement: left out of every line.
    fmt::print(out, "  costs of input tokens (output is the same under any placement)\n");
    fmt::print(out, "  current    {:>16} · hit rate {}  (simulated: {})\n",
               money(f.current.cost_usd), format_percent(f.current.hit_rate()),
               f.placeable || !f.note.empty() ? "the requests' own breakpoints"
                                              : "the provider's automatic cache");
    print_reported(f, money, out);
    fmt::print(out, "  suggested  {:>16} · hit rate {}  {}\n", money(f.suggested_replay.cost_usd),
               format_percent(f.suggested_replay.hit_rate()),
               !f.placeable      ? "(nothing to place)"
               : f.kept_untimed  ? "the current placement: a cheaper one drops a breakpoint, "
                                   "not judged without logged times"
               : f.kept_single   ? "the current placement: a cheaper one drops a breakpoint, "
                                   "not judged on one request (it cannot show reuse)"
               : f.keeps_current ? "the current placement: it is the best found"
                                 : f.suggested.describe());
    fmt::print(out, "  ideal      {:>16} (lower bound of the replays: every shared token read)\n",
               money(f.ideal_cost_usd));
    const double saved = f.current.cost_usd - f.suggested_replay.cost_usd;
    if (f.current.priced) {
        fmt::print(out, "  saves      {:>16} ({}) on input tokens{}\n", money(saved),
                   format_percent(f.current.cost_usd > 0 ? saved / f.current.cost_usd : 0.0),
                   warmed_outside(f) && saved > 0
                       ? ", against the simulated current placement, not the bill"
                       : "");
    } else {
        fmt::print(out, "  saves      unpriced (a model of this family has no price in "
                        "rules/pricing.json)\n");
    }
}

} // namespace

void
print_suggestion(const SuggestReport& report, Format format, std::ostream& out)
{
    if (format == Format::json) {
        print_json(report, out);
        return;
    }
    for (const auto& f : report.suggestion.families) {
        if (report.single) {
            print_request(report, f, out);
        } else {
            print_family(f, out);
        }
    }
    for (const auto& a : report.suggestion.advice) {
        fmt::print(out, "advice: {}\n", safe_text(a));
    }
}

void
print_diff(const std::string& diff, std::ostream& out)
{
    out << safe_lines(diff);
}

} // namespace cachewise::report
