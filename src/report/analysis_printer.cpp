#include "report/analysis_printer.hpp"

#include "report/finding_json.hpp"
#include "report/html_report.hpp"
#include "report/id_key.hpp"
#include "report/load_notes.hpp"
#include "report/request_json.hpp"
#include "report/text_table.hpp"
#include "util/format.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

namespace cachewise::report {

using analysis::AnalysisResult;
using analysis::Finding;

namespace {

// "0.027188 USD", as every report writes dollars (util/format.hpp)
std::string
money(const std::optional<double>& usd)
{
    return usd ? format_usd(*usd) + " USD" : "";
}

std::string
percent(double fraction)
{
    return format_percent(fraction);
}

std::string
where(const Finding& f)
{
    std::string s = f.location.path;
    if (f.location.offset) {
        s += fmt::format(" offset {}", group_count(*f.location.offset));
    }
    if (f.location.token) {
        s += fmt::format(", token ≈{}", group_digits(*f.location.token));
    }
    return s;
}

std::string
title(const Finding& f)
{
    return f.kind.empty() ? fmt::format("{} {}", f.rule, f.name)
                          : fmt::format("{} {} ({})", f.rule, f.name, f.kind);
}

// A --window as given: 30 s, 5 min, 2 h.
std::string
window_words(double seconds)
{
    const auto whole = static_cast<std::int64_t>(seconds);
    if (static_cast<double>(whole) != seconds) {
        return fmt::format("{} s", seconds);
    }
    return whole % 3600 == 0 ? fmt::format("{} h", whole / 3600)
           : whole % 60 == 0 ? fmt::format("{} min", whole / 60)
                             : fmt::format("{} s", whole);
}

// The cold starts the provider reports reading from: cold only within the log.
std::string
cold_read_words(const AnalysisResult& r)
{
    if (r.cold_starts_read == 0) {
        return "";
    }
    const std::string who = r.cold_starts_read < r.cold_starts
                                ? fmt::format("{} of them", group_count(r.cold_starts_read))
                            : r.cold_starts == 1 ? "it"
                                                 : "all";
    // A prefix the log held before the window was warmed by the log itself.
    const std::size_t before = r.cold_starts_read_before_window;
    const std::string window = window_words(r.window_seconds);
    const std::string why =
        before == 0 ? "warmed outside the log"
        : before == r.cold_starts_read
            ? fmt::format("warmed by requests of the log more than the --window of {} before",
                          window)
            : fmt::format("{} warmed by requests of the log more than the --window of {} before, "
                          "the others outside the log",
                          group_count(before), window);
    return fmt::format(" ({} read from the cache: {})", who, why);
}

// What was read and how the requests relate to their partners.
void
text_summary(const AnalysisResult& r, std::ostream& out)
{
    fmt::print(
        out,
        "cachewise analyze: {} in {} · {} input tokens · reuse potential {} ({} tokens shared with "
        "their partners)\n",
        count_noun(r.requests, "request"), count_noun(r.streams, "stream"),
        group_digits(r.input_tokens), percent(r.reuse_potential()), group_digits(r.shared_tokens));
    fmt::print(out,
               "  {}{} · {} append-only · {} on a shared head · {} · {} after the cached prefix",
               count_noun(r.cold_starts, "cold start"), cold_read_words(r), group_count(r.extends),
               count_noun(r.branched, "new conversation"), count_noun(r.breaks, "break"),
               group_count(r.uncached));
    if (r.truncated > 0) {
        fmt::print(out, " · {} shorter than {} partner", group_count(r.truncated),
                   r.truncated == 1 ? "its" : "their");
    }
    if (r.not_logged > 0) {
        fmt::print(out, " · {} without a logged prompt", group_count(r.not_logged));
    }
    fmt::print(out, "\n  tokens lost to breaks: {}{}\n", group_digits(r.tokens_lost),
               r.cost_lost_usd ? fmt::format(" (≈{} extra, estimated)", money(r.cost_lost_usd))
                               : "");
}

// The breaks by cause, then the dynamic fields and latent template bugs.
void
text_causes(const AnalysisResult& r, const AnalysisPrintOptions& o, const IdKey& ids,
            std::ostream& out)
{
    if (!r.causes.empty()) {
        fmt::print(out, "\nBreaks by cause\n");
        // The money column (>0) is as wide as the widest amount.
        TextTable table("<5 <20 >10  >12 <0  >0  <0");
        for (const auto& c : r.causes) {
            std::string places;
            for (const auto& [path, n] : c.top_locations) {
                places += fmt::format("{}{} ×{}", places.empty() ? "" : ", ", path, group_count(n));
            }
            table.add_row({c.rule, c.name, count_noun(c.count, "break"),
                           group_digits(c.tokens_lost), "tokens lost", money(c.cost_usd),
                           "at " + places});
        }
        table.print(out);
    }

    if (!r.dynamic_fields.empty()) {
        fmt::print(out, "\nDynamic fields in the cached part of cold-start prompts\n");
        std::size_t shown = 0;
        for (const auto& f : r.dynamic_fields) {
            if (shown++ == o.top) {
                fmt::print(out, "  … and {} more (--top)\n",
                           group_count(r.dynamic_fields.size() - o.top));
                break;
            }
            const bool daily = f.kind == "date" || f.kind == "today";
            fmt::print(out, "  {} {} at {}: {} — would spoil {} tokens{}{}\n", f.rule, f.kind,
                       where(f), f.excerpt ? f.excerpt->now : "", group_digits(f.tokens_lost),
                       daily ? " when it changes (daily, at midnight)" : "",
                       f.occurrences > 1
                           ? fmt::format(" ({})", count_noun(f.occurrences, "request"))
                           : "");
        }
    }

    if (!r.latent.empty()) {
        const std::string note = ids.note();
        fmt::print(out,
                   "\nLatent: after the cached prefix today, a break for any breakpoint placed "
                   "after them{}\n",
                   note.empty() ? "" : " (" + note + ")");
        for (const auto& f : r.latent) {
            fmt::print(out, "  {} {} at {} in {} ← {}{}\n", f.rule, f.kind, where(f),
                       ids.shorten(f.request), ids.shorten(f.partner),
                       f.occurrences > 1
                           ? fmt::format(" (and {} more)", count_noun(f.occurrences - 1, "request"))
                           : "");
        }
    }
}

// Every break with its was/now excerpt (--details), else a pointer to it.
void
text_breaks(const AnalysisResult& r, const IdKey& ids, bool details, std::ostream& out)
{
    if (details && !r.findings.empty()) {
        const std::string note = ids.note();
        fmt::print(out, "\nBreaks{}\n", note.empty() ? "" : " (" + note + ")");
        for (const auto& f : r.findings) {
            fmt::print(out, "  {} ← {}  {}  {}, {} tokens lost{}\n", ids.shorten(f.request),
                       ids.shorten(f.partner), title(f), where(f), group_digits(f.tokens_lost),
                       f.cost_usd ? fmt::format(" (≈{})", money(f.cost_usd)) : "");
            if (f.excerpt && !(f.excerpt->was.empty() && f.excerpt->now.empty())) {
                fmt::print(out, "    was: {}\n    now: {}\n", f.excerpt->was, f.excerpt->now);
            }
            fmt::print(out, "    {}\n", f.message);
        }
    } else if (!r.findings.empty()) {
        fmt::print(out, "\n(--details lists every break with its was/now excerpt)\n");
    }
}

IdKey
ids_of(const AnalysisResult& r)
{
    std::vector<std::string_view> all_ids;
    for (const auto& outcome : r.outcomes) {
        all_ids.push_back(outcome.id);
    }
    return IdKey(all_ids);
}

void
text(const AnalysisResult& r, const ingest::LoadSummary& load, const AnalysisPrintOptions& o,
     std::ostream& out)
{
    const IdKey ids = ids_of(r);
    text_summary(r, out);
    text_causes(r, o, ids, out);
    if (!r.hot_prefixes.empty()) {
        const std::string note = ids.note();
        fmt::print(out, "\nHottest shared prefixes (requests × tokens{})\n",
                   note.empty() ? "" : "; " + note);
        TextTable table(">8  >7  >8  >9  <28  <0");
        table.add_row({"requests", "streams", "segments", "tokens", "ends at", "example"});
        for (const auto& h : r.hot_prefixes) {
            table.add_row({group_count(h.requests), group_count(h.streams), group_count(h.segments),
                           group_digits(h.tokens), h.ends_at, std::string(ids.shorten(h.example))});
        }
        table.print(out);
    }

    text_breaks(r, ids, o.details, out);
    print_load_notes(load, out);
}

void
markdown(const AnalysisResult& r, const ingest::LoadSummary& load, const AnalysisPrintOptions& o,
         std::ostream& out)
{
    fmt::print(out, "### cachewise analyze\n\n");
    const IdKey ids = ids_of(r);
    if (const auto note = ids.note(); !note.empty() && (!r.findings.empty() || !r.latent.empty())) {
        fmt::print(out, "_Request {}._\n\n", note);
    }
    fmt::print(out, "| requests | streams | input tokens | reuse potential | breaks | tokens lost "
                    "| extra cost |\n");
    fmt::print(out, "|---:|---:|---:|---:|---:|---:|---:|\n");
    fmt::print(out, "| {} | {} | {} | {} | {} | {} | {} |\n\n", group_count(r.requests),
               group_count(r.streams), group_digits(r.input_tokens), percent(r.reuse_potential()),
               group_count(r.breaks), group_digits(r.tokens_lost),
               r.cost_lost_usd ? "≈" + money(r.cost_lost_usd) : "—");
    if (!r.causes.empty()) {
        fmt::print(out, "| rule | breaks | tokens lost | where |\n|---|---:|---:|---|\n");
        for (const auto& c : r.causes) {
            std::string places;
            for (const auto& [path, n] : c.top_locations) {
                places +=
                    fmt::format("{}`{}` ×{}", places.empty() ? "" : ", ", path, group_count(n));
            }
            fmt::print(out, "| **{}** {} | {} | {} | {} |\n", c.rule, c.name, group_count(c.count),
                       group_digits(c.tokens_lost), places);
        }
        fmt::print(out, "\n");
    }
    if (!r.dynamic_fields.empty()) {
        fmt::print(out, "**Dynamic fields in cold-start prompts**\n\n");
        std::size_t shown = 0;
        for (const auto& f : r.dynamic_fields) {
            if (shown++ == o.top) {
                break;
            }
            fmt::print(out, "- `{}` {} at `{}`: `{}` (would spoil {} tokens{})\n", f.rule, f.kind,
                       where(f), f.excerpt ? f.excerpt->now : "", group_digits(f.tokens_lost),
                       f.occurrences > 1 ? "; " + count_noun(f.occurrences, "request") : "");
        }
        fmt::print(out, "\n");
    }
    if (!r.latent.empty()) {
        fmt::print(out, "**Latent: after the cached prefix today, a break for any breakpoint "
                        "placed after them**\n\n");
        for (const auto& f : r.latent) {
            fmt::print(out, "- `{}` {} at `{}` in `{}` ← `{}`{}\n", f.rule, f.kind, where(f),
                       ids.shorten(f.request), ids.shorten(f.partner),
                       f.occurrences > 1
                           ? fmt::format(" (and {} more)", count_noun(f.occurrences - 1, "request"))
                           : "");
        }
        fmt::print(out, "\n");
    }
    if (!r.findings.empty()) {
        fmt::print(out, "<details><summary>{}</summary>\n\n",
                   count_noun(r.findings.size(), "break"));
        std::size_t shown = 0;
        for (const auto& f : r.findings) {
            if (!o.details && shown++ == o.top) {
                fmt::print(out, "- … and {} more\n", group_count(r.findings.size() - o.top));
                break;
            }
            fmt::print(out, "- **{}** `{}` ← `{}` at `{}`: {} tokens lost. {}\n", title(f),
                       ids.shorten(f.request), ids.shorten(f.partner), where(f),
                       group_digits(f.tokens_lost), ids.shorten_in(f.message));
            if (f.excerpt && !f.excerpt->was.empty()) {
                fmt::print(out, "  ```\n  was: {}\n  now: {}\n  ```\n", f.excerpt->was,
                           f.excerpt->now);
            }
        }
        fmt::print(out, "\n</details>\n");
    }
    if (load.error_count > 0) {
        fmt::print(out, "\n_{} skipped._\n", count_noun(load.error_count, "broken record"));
    }
}

void
json(const AnalysisResult& r, const ingest::LoadSummary& load, std::ostream& out)
{
    Json j = json_document("analyze");
    j["window_seconds"] = r.window_seconds;
    j["summary"] = {{"requests", r.requests},
                    {"streams", r.streams},
                    {"cold_starts", r.cold_starts},
                    {"cold_starts_read", r.cold_starts_read},
                    {"cold_starts_read_before_window", r.cold_starts_read_before_window},
                    {"append_only", r.extends},
                    {"branched", r.branched},
                    {"breaks", r.breaks},
                    {"diverged_after_cache", r.uncached},
                    {"truncated", r.truncated},
                    {"not_logged", r.not_logged},
                    {"input_tokens", r.input_tokens},
                    {"shared_tokens", r.shared_tokens},
                    {"reuse_potential", r.reuse_potential()},
                    {"tokens_lost", r.tokens_lost},
                    {"cost_lost_usd", r.cost_lost_usd ? Json(*r.cost_lost_usd) : Json(nullptr)}};
    Json causes = Json::array();
    for (const auto& c : r.causes) {
        Json places = Json::array();
        for (const auto& [path, n] : c.top_locations) {
            places.push_back({{"path", path}, {"count", n}});
        }
        causes.push_back({{"rule", c.rule},
                          {"name", c.name},
                          {"count", c.count},
                          {"tokens_lost", c.tokens_lost},
                          {"cost_usd", c.cost_usd ? Json(*c.cost_usd) : Json(nullptr)},
                          {"top_locations", places}});
    }
    j["causes"] = causes;
    Json findings = Json::array();
    for (const auto& f : r.findings) {
        findings.push_back(finding_to_json(f));
    }
    for (const auto& f : r.dynamic_fields) {
        findings.push_back(finding_to_json(f));
    }
    for (const auto& f : r.latent) {
        findings.push_back(finding_to_json(f));
    }
    j["findings"] = findings;
    Json hot = Json::array();
    for (const auto& h : r.hot_prefixes) {
        hot.push_back({{"model", h.model},
                       {"ends_at", h.ends_at},
                       {"segments", h.segments},
                       {"tokens", h.tokens},
                       {"requests", h.requests},
                       {"streams", h.streams},
                       {"example", h.example}});
    }
    j["hot_prefixes"] = hot;
    j["requests"] = Json::array(); // streamed: see dump_with_rows
    add_load_json(j, load);
    dump_with_rows(
        j, r.outcomes.size(),
        [&](std::size_t i, JsonWriter& w) {
            const auto& o = r.outcomes[i];
            w.object()
                .member("id", o.id)
                .member_or_null("stream", o.stream)
                .member_or_null("partner", o.partner)
                .member("status", analysis::to_string(o.status))
                .member("prompt_tokens", o.prompt_tokens)
                .member("shared_tokens", o.shared_tokens)
                .member("finding", o.finding)
                .end();
        },
        out);
}

} // namespace

void
print_analysis(const AnalysisResult& result, const ingest::LoadSummary& load,
               const AnalysisPrintOptions& options, std::ostream& out)
{
    // csv is refused by the settings for analyze.
    print_in(options.format,
             {.text = [&] { text(result, load, options, out); },
              .json = [&] { json(result, load, out); },
              .markdown = [&] { markdown(result, load, options, out); },
              .html = [&] { print_html(html_from_analysis(result, HtmlLimits{}), out); }});
}

} // namespace cachewise::report
