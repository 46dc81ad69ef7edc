#include "report/html_report.hpp"

#include "analysis/rule_catalogue.hpp"
#include "report/html_escape.hpp"
#include "report/html_page.hpp"
#include "report/svg_chart.hpp"
#include "util/format.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <cmath>
#include <set>

namespace cachewise::report {

namespace {

constexpr double k_width = 960;

std::string
esc(std::string_view s)
{
    return html_escape(s);
}

std::string
tokens(std::int64_t n)
{
    return group_digits(n);
}

std::string
usd_or_dash(const std::optional<double>& v)
{
    return v ? format_usd(*v) : "–";
}

std::string
percent_or_dash(const std::optional<double>& v)
{
    return v ? format_percent(*v) : "–";
}

std::string
number_cell(const std::string& text, double sort)
{
    return fmt::format("<td class=\"n\" data-sort=\"{}\">{}</td>", sort, esc(text));
}

void
filter_box(std::ostream& out, std::string_view table_id, std::string_view what)
{
    fmt::print(out,
               "<input class=\"filter\" type=\"search\" data-table=\"{}\" placeholder=\"filter "
               "{}\" aria-label=\"filter {}\">\n",
               table_id, what, what);
}

void
header(std::ostream& out, const HtmlReport& r)
{
    fmt::print(out,
               "<header>\n<h1>cachewise {}</h1>\n<p class=\"muted\" id=\"run-summary\">{}</p>\n",
               esc(r.command), esc(r.summary));
    fmt::print(out, "<nav><a href=\"#summary\">Summary</a><a href=\"#waterfall\">Cost "
                    "waterfall</a><a href=\"#timeline\">Timeline</a><a href=\"#hit-rate\">Hit rate "
                    "over time</a><a href=\"#causes\">Causes</a><a href=\"#breaks\">Breaks and "
                    "prefixes</a></nav>\n</header>\n");
}

// audit --by: the totals of each day, stream or model.
void
groups_table(std::ostream& out, const HtmlReport& r)
{
    if (r.by.empty()) {
        return;
    }
    fmt::print(out, "<h3 id=\"by\">By {}</h3>\n", esc(r.by));
    filter_box(out, "by-table", r.by);
    fmt::print(out,
               "<table id=\"by-table\" class=\"sortable\"><thead><tr><th>{}</th><th "
               "class=\"n\">requests</th><th class=\"n\">hit rate</th><th class=\"n\">"
               "actual USD</th><th class=\"n\">no-cache USD</th><th class=\"n\">saved USD"
               "</th></tr></thead><tbody>\n",
               esc(r.by));
    for (const auto& g : r.groups) {
        const std::optional<double> saved =
            g.actual_usd ? std::optional<double>(*g.no_cache_usd - *g.actual_usd) : std::nullopt;
        // With the cost the log reports for unpriced models, as text --by says.
        const double actual = g.actual_usd.value_or(0) + g.reported_cost_usd.value_or(0);
        const std::string actual_text = g.reported_cost_usd
                                            ? format_usd(actual) + " (with reported)"
                                            : usd_or_dash(g.actual_usd);
        fmt::print(out, "<tr data-key=\"{}\"><td>{}</td>{}{}{}{}{}</tr>\n", esc(g.key), esc(g.key),
                   number_cell(group_count(g.requests), static_cast<double>(g.requests)),
                   number_cell(percent_or_dash(g.hit_rate), g.hit_rate.value_or(0)),
                   number_cell(actual_text, actual),
                   number_cell(usd_or_dash(g.no_cache_usd), g.no_cache_usd.value_or(0)),
                   number_cell(usd_or_dash(saved), saved.value_or(0)));
    }
    fmt::print(out, "</tbody></table>\n");
}

void
summary_view(std::ostream& out, const HtmlReport& r)
{
    fmt::print(out, "<section id=\"summary\" class=\"view\">\n<h2>Summary</h2>\n<div "
                    "class=\"cards\">\n");
    for (const auto& c : r.cards) {
        fmt::print(out,
                   "<div class=\"card\" id=\"card-{}\" data-json=\"{}\" data-value=\"{}\"><div "
                   "class=\"label\">{}</div><div class=\"value\">{}</div>{}</div>\n",
                   esc(c.id), esc(c.json), esc(c.raw), esc(c.label), esc(c.value),
                   c.note.empty() ? "" : fmt::format("<div class=\"sub\">{}</div>", esc(c.note)));
    }
    fmt::print(out,
               "</div>\n<details><summary>The cards as a table</summary>\n<table "
               "id=\"summary-table\"><thead><tr><th>measure</th><th class=\"n\">value</th></tr>"
               "</thead><tbody>\n");
    for (const auto& c : r.cards) {
        fmt::print(out, "<tr><td>{}</td><td class=\"n\">{}</td></tr>\n", esc(c.label),
                   esc(c.value));
    }
    fmt::print(out, "</tbody></table>\n</details>\n");
    groups_table(out, r);
    fmt::print(out, "</section>\n");
}

// Totals stand on zero; the changes between them float from the running sum.
void
waterfall_chart(std::ostream& out, const HtmlReport& r)
{
    double top = 0;
    double running = 0;
    for (const auto& s : r.waterfall) {
        if (s.usd) {
            running = s.total ? *s.usd : running + *s.usd;
            top = std::max({top, running, s.total ? *s.usd : running - *s.usd});
        }
    }
    const double h = 260;
    const double base = h - 40;
    const double scale = top > 0 ? (base - 20) / top : 0;
    const double slot = k_width / static_cast<double>(r.waterfall.size());
    out << svg_open(k_width, h, "cost waterfall in USD", "waterfall-table");
    out << svg_line(0, base, k_width, base, "axis");
    running = 0;
    for (std::size_t i = 0; i < r.waterfall.size(); ++i) {
        const auto& s = r.waterfall[i];
        const double x = slot * static_cast<double>(i) + slot * 0.15;
        const double w = slot * 0.7;
        out << svg_text(x + w / 2, h - 22, s.label, "middle");
        if (!s.usd) {
            out << svg_rect(x, 40, w, base - 40, "nc", s.label + ": " + s.note);
            out << svg_text(x + w / 2, base / 2 + 20, "not computed", "middle", "lbl");
            continue;
        }
        const double from = s.total ? 0 : running;
        const double to = s.total ? *s.usd : running + *s.usd;
        running = to;
        const double y = base - std::max(from, to) * scale;
        const double bar_h = std::max(1.0, std::abs(to - from) * scale);
        const char* css = s.total ? "tot" : (*s.usd < 0 ? "down" : "up");
        out << svg_rect(x, y, w, bar_h, css,
                        fmt::format("{}: {} USD", s.label, format_usd(*s.usd)));
        out << svg_text(x + w / 2, y - 4, format_usd(*s.usd), "middle");
    }
    out << "</svg>\n";
}

void
waterfall_view(std::ostream& out, const HtmlReport& r)
{
    fmt::print(out,
               "<section id=\"waterfall\" class=\"view\">\n<h2>Cost waterfall</h2>\n<p "
               "class=\"note\">{}</p>\n",
               esc(r.waterfall_note));
    if (r.waterfall.empty()) {
        fmt::print(out, "</section>\n");
        return;
    }
    waterfall_chart(out, r);
    fmt::print(out, "<table id=\"waterfall-table\"><thead><tr><th>step</th><th class=\"n\">USD"
                    "</th><th>kind</th><th>what</th></tr></thead><tbody>\n");
    for (const auto& s : r.waterfall) {
        // + 0.0: a -0 difference is written 0, as format_usd shows it.
        fmt::print(out,
                   "<tr id=\"step-{}\" data-json=\"{}\" data-value=\"{}\"><td>{}</td><td "
                   "class=\"n\">{}</td><td>{}</td><td>{}</td></tr>\n",
                   esc(s.id), esc(s.json), s.usd ? fmt::format("{}", *s.usd + 0.0) : "",
                   esc(s.label), s.usd ? format_usd(*s.usd) : "not computed",
                   s.total ? "total" : "change", esc(s.note));
    }
    fmt::print(out, "</tbody></table>\n</section>\n");
}

// Each lane on its own span: a log that runs for days holds streams of
// seconds, whose bars a page-wide axis would draw on top of one another.
struct LaneScale {
    double min_at = 0;
    double span = 1;
    bool time_axis = false;

    LaneScale(const TimelineLane& lane, bool time) : time_axis(time)
    {
        if (lane.bars.empty()) {
            return;
        }
        min_at = lane.bars.front().at;
        double max_at = min_at;
        for (const auto& b : lane.bars) {
            min_at = std::min(min_at, b.at);
            max_at = std::max(max_at, b.at);
        }
        for (const auto& g : lane.gaps) {
            max_at = std::max(max_at, g.to);
        }
        span = std::max(max_at - min_at, 1.0);
    }
    // Where `at` lies along a plot `plot_w` wide from `left`, with a margin
    // of 2% of the span on each side for the first and last bars.
    [[nodiscard]] double x(double at, double left, double plot_w) const
    {
        return left + plot_w * (at - min_at + 0.02 * span) / (1.04 * span);
    }
};

// Ticks from the lane's first request: durations since it, or request numbers.
void
lane_axis(std::ostream& out, const LaneScale& s, double left, double plot_w, double y)
{
    out << svg_line(left, y, left + plot_w, y, "axis");
    for (const double t : s.time_axis ? time_ticks(s.span, 8) : nice_ticks(s.span, 8)) {
        if (t > s.span) {
            break;
        }
        const double x = s.x(s.min_at + t, left, plot_w);
        out << svg_line(x, y, x, y + 4, "axis");
        out << svg_text(x, y + 15,
                        s.time_axis ? "+" + short_duration(t)
                                    : fmt::format("#{:.0f}", s.min_at + t + 1),
                        "middle", "lbl");
    }
}

// One marker a bar, however many findings it holds (a bucket may hold
// thousands); it links to the first of them shown on the page.
std::string
break_mark(const TimelineBar& b, double x, double y, const std::set<std::string>& anchors)
{
    std::string mark = fmt::format(
        "<path d=\"M{:.1f} {:.1f}l5 -9h-10z\" class=\"brk\"><title>{} at {}</title></path>", x, y,
        b.breaks.size() == 1 ? std::string("a finding") : count_noun(b.breaks.size(), "finding"),
        esc(b.label));
    for (const auto& anchor : b.breaks) {
        if (anchors.contains(anchor)) {
            return fmt::format("<a href=\"#{}\">{}</a>", esc(anchor), mark);
        }
    }
    return mark;
}

void
lane_chart(std::ostream& out, const TimelineLane& lane, std::size_t index, const LaneScale& s,
           const std::set<std::string>& anchors, const std::vector<std::string>& parts)
{
    const double h = 150;
    const double left = 50;
    const double plot_w = k_width - left - 20;
    const double base = h - 30;
    const double top = 18;
    std::int64_t peak = 1;
    for (const auto& b : lane.bars) {
        peak = std::max(peak, b.parts[0] + b.parts[1] + b.parts[2] + b.parts[3]);
    }
    const double scale = (base - top) / static_cast<double>(peak);
    const double bar_w = std::clamp(
        plot_w / static_cast<double>(std::max<std::size_t>(lane.bars.size(), 1)) * 0.6, 1.5, 14.0);
    const auto x_of = [&](double at) { return s.x(at, left, plot_w); };
    out << svg_open(k_width, h, "timeline of " + lane.stream, fmt::format("lane-{}-table", index));
    for (const auto& g : lane.gaps) {
        const double expiry = x_of(g.from + g.ttl);
        out << svg_rect(expiry, top, std::max(1.0, x_of(g.to) - expiry), base - top, "gap",
                        fmt::format("idle {} s, beyond the {} s TTL: the entry expired",
                                    std::llround(g.to - g.from), std::llround(g.ttl)));
        out << svg_line(expiry, top, expiry, base, "ttl");
    }
    for (const double t : nice_ticks(static_cast<double>(peak), 3)) {
        out << svg_text(left - 6, base - t * scale + 4, short_count(t), "end", "lbl");
    }
    for (const auto& b : lane.bars) {
        const double x = x_of(b.at) - bar_w / 2;
        double y = base;
        for (int p = 0; p < 4; ++p) {
            if (b.parts[p] <= 0) {
                continue;
            }
            const double ph = static_cast<double>(b.parts[p]) * scale;
            y -= ph;
            out << svg_rect(x, y, bar_w, ph, fmt::format("p{}", p),
                            fmt::format("{}: {} {} tokens", b.label, tokens(b.parts[p]),
                                        parts[static_cast<std::size_t>(p)]));
        }
        if (!b.breaks.empty()) {
            out << break_mark(b, x + bar_w / 2, top - 2, anchors);
        }
    }
    lane_axis(out, s, left, plot_w, base);
    out << "</svg>\n";
}

void
lane_table(std::ostream& out, const TimelineLane& lane, std::size_t index,
           const std::vector<std::string>& parts, bool time_axis)
{
    // Without start times idle gaps are not judged: "0 idle gaps" would
    // claim what the log cannot show.
    fmt::print(
        out, "<details><summary>Table: {}{}</summary>\n", count_noun(lane.bars.size(), "bar"),
        time_axis ? fmt::format(", {} beyond the TTL", count_noun(lane.gaps_total, "idle gap"))
                  : std::string(", idle gaps not judged (no start times)"));
    fmt::print(out,
               "<table id=\"lane-{}-table\" class=\"sortable\"><thead><tr><th>request</th>"
               "<th class=\"n\">{}</th>",
               index, time_axis ? "at (s from the first request)" : "request #");
    for (const auto& p : parts) {
        if (!p.empty()) {
            fmt::print(out, "<th class=\"n\">{}</th>", esc(p));
        }
    }
    // Every finding of the request (audit's include CW012, CW031...), not only breaks.
    fmt::print(out, "<th>findings</th></tr></thead><tbody>\n");
    for (const auto& b : lane.bars) {
        fmt::print(out, "<tr><td>{}</td><td class=\"n\">{}</td>", esc(b.label), b.at);
        for (std::size_t p = 0; p < parts.size(); ++p) {
            if (!parts[p].empty()) {
                out << number_cell(tokens(b.parts[p]), static_cast<double>(b.parts[p]));
            }
        }
        fmt::print(out, "<td>{}</td></tr>\n", group_count(b.breaks.size()));
    }
    fmt::print(out, "</tbody></table>\n</details>\n");
}

void
legend(std::ostream& out, const std::vector<std::string>& parts, bool gaps)
{
    out << "<p class=\"legend\">";
    for (std::size_t p = 0; p < parts.size(); ++p) {
        if (!parts[p].empty()) {
            fmt::print(out, "<span><i class=\"sw p{}\"></i>{}</span>", p, esc(parts[p]));
        }
    }
    if (gaps) {
        out << "<span><i class=\"sw gap\"></i>idle beyond the TTL (dashed line: the entry "
               "expires)</span>";
    }
    out << "<span>▼ a break (links to it)</span></p>\n";
}

void
timeline_view(std::ostream& out, const HtmlReport& r, const std::set<std::string>& anchors)
{
    fmt::print(out, "<section id=\"timeline\" class=\"view\">\n<h2>Timeline per stream</h2>\n");
    fmt::print(out, "<p class=\"note\">{}</p>\n", esc(r.timeline_note));
    legend(out, r.timeline_parts, r.time_axis);
    for (std::size_t i = 0; i < r.lanes.size(); ++i) {
        const auto& lane = r.lanes[i];
        const LaneScale scale(lane, r.time_axis);
        fmt::print(out, "<h3 id=\"lane-{}\">{}{} <span class=\"muted\">{}{}</span></h3>\n", i,
                   lane.side ? "side call: " : "",
                   esc(lane.stream.empty() ? "(no stream)" : lane.stream),
                   count_noun(lane.requests, "request"),
                   r.time_axis ? fmt::format(", from {} after the log's first request",
                                             short_duration(scale.min_at))
                               : std::string());
        lane_chart(out, lane, i, scale, anchors, r.timeline_parts);
        lane_table(out, lane, i, r.timeline_parts, r.time_axis);
    }
    fmt::print(out, "</section>\n");
}

double
rate(const HitBucket& b)
{
    return b.input > 0 ? static_cast<double>(b.read) / static_cast<double>(b.input) : 0.0;
}

void
hit_chart(std::ostream& out, const HtmlReport& r)
{
    const double h = 240;
    const double left = 50;
    const double plot_w = k_width - left - 20;
    const double base = h - 40;
    const double top = 12;
    std::size_t n = 1;
    for (const auto& s : r.hit_series) {
        n = std::max(n, s.buckets.size());
    }
    const auto x_of = [&](std::size_t i) {
        return n == 1 ? left + plot_w / 2
                      : left + plot_w * static_cast<double>(i) / static_cast<double>(n - 1);
    };
    out << svg_open(k_width, h, r.hit_label + " over time", "hit-rate-table");
    for (const double p : {0.0, 0.25, 0.5, 0.75, 1.0}) {
        const double y = base - p * (base - top);
        out << svg_line(left, y, left + plot_w, y, "axis");
        out << svg_text(left - 6, y + 4, format_percent(p), "end", "lbl");
    }
    const auto& all = r.hit_series.front().buckets;
    const std::size_t every = std::max<std::size_t>(1, all.size() / 8);
    for (std::size_t i = 0; i < all.size(); i += every) {
        // The ends are anchored inwards so their labels stay inside the chart.
        const char* anchor = all.size() == 1 ? "middle" : i == 0 ? "start" : "middle";
        if (i + every >= all.size() && i > 0) {
            anchor = "end";
        }
        out << svg_text(x_of(i), base + 16, all[i].label, anchor, "lbl");
    }
    for (std::size_t s = 0; s < r.hit_series.size() && s < 5; ++s) {
        const auto& series = r.hit_series[s];
        std::string points;
        for (std::size_t i = 0; i < series.buckets.size(); ++i) {
            if (series.buckets[i].input == 0) {
                continue; // no usage (or no input) in it: no rate to draw, not a 0%
            }
            const double y = base - rate(series.buckets[i]) * (base - top);
            points += fmt::format("{}{:.1f},{:.1f}", points.empty() ? "" : " ", x_of(i), y);
            out << fmt::format(
                "<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"2.5\" class=\"f{}\"><title>{} "
                "{}: {}</title></circle>",
                x_of(i), y, s, esc(series.name), esc(series.buckets[i].label),
                format_percent(rate(series.buckets[i])));
        }
        out << fmt::format("<polyline points=\"{}\" class=\"line s{}\"/>", points, s);
    }
    out << "</svg>\n";
}

void
hit_view(std::ostream& out, const HtmlReport& r)
{
    fmt::print(out, "<section id=\"hit-rate\" class=\"view\">\n<h2>{} over time</h2>\n",
               r.hit_label == "hit rate" ? "Hit rate" : "Reuse potential");
    if (r.hit_series.empty()) {
        fmt::print(out, "<p class=\"note\">No requests.</p>\n</section>\n");
        return;
    }
    fmt::print(out, "<p class=\"note\">Token-weighted {} per {}{}.</p>\n<p class=\"legend\">",
               esc(r.hit_label), r.hit_bucket == "requests" ? "run of requests" : r.hit_bucket,
               r.hit_bucket == "requests" ? "" : " (UTC)");
    for (std::size_t s = 0; s < r.hit_series.size() && s < 5; ++s) {
        fmt::print(out, "<span><i class=\"sw f{}\"></i>{}</span>", s, esc(r.hit_series[s].name));
    }
    out << "</p>\n";
    hit_chart(out, r);
    fmt::print(out,
               "<table id=\"hit-rate-table\" class=\"sortable\"><thead><tr><th>series</th>"
               "<th>{}</th><th class=\"n\">requests</th><th class=\"n\">{}</th><th "
               "class=\"n\">of input tokens</th><th class=\"n\">{}</th></tr></thead><tbody>\n",
               r.hit_bucket == "requests" ? std::string("requests (in order)")
                                          : r.hit_bucket + " (UTC)",
               r.hit_label == "hit rate" ? "read tokens" : "shared tokens", esc(r.hit_label));
    for (const auto& s : r.hit_series) {
        for (const auto& b : s.buckets) {
            fmt::print(
                out,
                "<tr data-series=\"{}\" data-read=\"{}\" data-input=\"{}\"><td>{}</td>"
                "<td>{}</td><td class=\"n\">{}</td>{}{}{}</tr>\n",
                esc(s.name), b.read, b.input, esc(s.name), esc(b.label), group_count(b.requests),
                number_cell(tokens(b.read), static_cast<double>(b.read)),
                number_cell(tokens(b.input), static_cast<double>(b.input)),
                b.input > 0 ? number_cell(format_percent(rate(b)), rate(b)) : number_cell("–", -1));
        }
    }
    fmt::print(out, "</tbody></table>\n</section>\n");
}

// What a cause's tokens are: lost to the cause; for CW023 written and never
// read (nothing was lost but the write premium); for CW040 what rotating
// the credential would spoil (nothing was lost to it yet).
std::string
cause_tokens(const CauseRow& c)
{
    const char* what = c.rule == analysis::rule::k_write_without_read ? "written, never read"
                       : c.rule == analysis::rule::k_secret_in_prompt ? "a rotation would spoil"
                                                                      : "lost";
    return fmt::format("{} {}", tokens(c.tokens_lost), what);
}

void
causes_chart(std::ostream& out, const HtmlReport& r)
{
    const double row = 26;
    const double left = 230;
    const double h = row * static_cast<double>(r.causes.size()) + 10;
    std::int64_t peak = 1;
    for (const auto& c : r.causes) {
        peak = std::max(peak, c.tokens_lost);
    }
    out << svg_open(k_width, h, "tokens lost by rule", "causes-table");
    for (std::size_t i = 0; i < r.causes.size(); ++i) {
        const auto& c = r.causes[i];
        const double y = 5 + row * static_cast<double>(i);
        const double w =
            (k_width - left - 200) * static_cast<double>(c.tokens_lost) / static_cast<double>(peak);
        const std::string name = c.rule + " " + c.name;
        out << (c.first_anchor.empty() ? svg_text(left - 8, y + 15, name, "end")
                                       : fmt::format("<a href=\"#{}\">{}</a>", esc(c.first_anchor),
                                                     svg_text(left - 8, y + 15, name, "end")));
        out << svg_rect(left, y + 3, std::max(1.0, w), row - 8, "p2",
                        fmt::format("{}: {}", name, cause_tokens(c)));
        out << svg_text(left + w + 6, y + 15,
                        fmt::format("{}{}", cause_tokens(c),
                                    c.cost_usd ? " · " + format_usd(*c.cost_usd) + " USD" : ""));
    }
    out << "</svg>\n";
}

void
causes_view(std::ostream& out, const HtmlReport& r)
{
    fmt::print(out, "<section id=\"causes\" class=\"view\">\n<h2>Causes</h2>\n");
    if (r.causes.empty()) {
        fmt::print(out, "<p class=\"note\">No findings: nothing was lost to a known cause.</p>\n"
                        "</section>\n");
        return;
    }
    fmt::print(out, "<p class=\"note\">Tokens and dollars lost, by rule (CW023: tokens written "
                    "and never read, and their write premium; CW040: what rotating the credential "
                    "would spoil); a rule's name links to its costliest finding; – where a rule "
                    "prices nothing.</p>\n");
    causes_chart(out, r);
    fmt::print(out, "<table id=\"causes-table\" class=\"sortable\"><thead><tr><th>rule</th><th>"
                    "name</th><th class=\"n\">count</th><th class=\"n\">tokens</th><th "
                    "class=\"n\">USD</th><th>fix</th></tr></thead><tbody>\n");
    for (const auto& c : r.causes) {
        fmt::print(out,
                   "<tr data-rule=\"{}\" data-tokens=\"{}\"><td>{}</td><td>{}</td>{}{}{}<td>{}"
                   "</td></tr>\n",
                   esc(c.rule), c.tokens_lost,
                   c.first_anchor.empty()
                       ? esc(c.rule)
                       : fmt::format("<a href=\"#{}\">{}</a>", esc(c.first_anchor), esc(c.rule)),
                   esc(c.name), number_cell(group_count(c.count), static_cast<double>(c.count)),
                   number_cell(cause_tokens(c), static_cast<double>(c.tokens_lost)),
                   number_cell(usd_or_dash(c.cost_usd), c.cost_usd.value_or(0)), esc(c.fix));
    }
    fmt::print(out, "</tbody></table>\n</section>\n");
}

void
finding_article(std::ostream& out, const BreakView& b)
{
    fmt::print(out,
               "<article class=\"finding\" id=\"{}\" data-rule=\"{}\">\n<h3>{} {}{} <span "
               "class=\"muted\">{} · request {}{}</span></h3>\n",
               esc(b.anchor), esc(b.rule), esc(b.rule), esc(b.name),
               b.kind.empty() ? "" : " (" + esc(b.kind) + ")", esc(b.severity), esc(b.request),
               b.partner.empty() ? "" : ", partner " + esc(b.partner));
    fmt::print(out, "<p>{}{}</p>\n", esc(b.message),
               b.occurrences > 1 ? " [×" + group_count(b.occurrences) + "]" : "");
    const std::string lost =
        b.at_risk ? fmt::format("a change would spoil {} tokens", tokens(b.tokens_lost))
                  : fmt::format("{} tokens lost", tokens(b.tokens_lost));
    fmt::print(out, "<p class=\"muted\">at <code>{}</code>{} · {} · {} USD</p>\n",
               esc(b.path.empty() ? "–" : b.path),
               b.token ? fmt::format(", token ≈{}", tokens(*b.token)) : "", lost,
               usd_or_dash(b.usd));
    if (b.excerpt && !b.excerpt->was.empty()) {
        fmt::print(out, "<p class=\"muted\">was</p><pre class=\"was\">{}</pre>\n",
                   html_excerpt(b.excerpt->was));
    }
    if (b.excerpt && !b.excerpt->now.empty()) {
        fmt::print(out, "<p class=\"muted\">now</p><pre class=\"now\">{}</pre>\n",
                   html_excerpt(b.excerpt->now));
    }
    if (!b.fix.empty()) {
        fmt::print(out, "<p><strong>Fix:</strong> {}</p>\n", esc(b.fix));
    }
    fmt::print(out, "</article>\n");
}

void
prefixes_view(std::ostream& out, const HtmlReport& r)
{
    fmt::print(out, "<h3 id=\"prefixes\">Hot shared prefixes</h3>\n");
    if (r.prefixes.empty()) {
        fmt::print(out, "<p class=\"note\">No prefix is shared by several requests.</p>\n");
        return;
    }
    double peak = 1;
    for (const auto& p : r.prefixes) {
        peak = std::max(peak, static_cast<double>(p.requests) * static_cast<double>(p.tokens));
    }
    const double row = 24;
    out << svg_open(k_width, row * static_cast<double>(r.prefixes.size()) + 8,
                    "hot shared prefixes, requests × tokens", "prefixes-table");
    for (std::size_t i = 0; i < r.prefixes.size(); ++i) {
        const auto& p = r.prefixes[i];
        const double y = 4 + row * static_cast<double>(i);
        const double w =
            420 * static_cast<double>(p.requests) * static_cast<double>(p.tokens) / peak;
        out << svg_text(300, y + 14, p.ends_at, "end");
        out << svg_rect(
            310, y + 3, std::max(1.0, w), row - 8, "p0",
            fmt::format("{} × {} tokens", count_noun(p.requests, "request"), tokens(p.tokens)));
        out << svg_text(
            316 + w, y + 14,
            fmt::format("{} × {} tokens", count_noun(p.requests, "request"), tokens(p.tokens)));
    }
    out << "</svg>\n";
    fmt::print(out, "<table id=\"prefixes-table\" class=\"sortable\"><thead><tr><th>ends at</th>"
                    "<th>model</th><th class=\"n\">requests</th><th class=\"n\">streams</th><th "
                    "class=\"n\">segments</th><th class=\"n\">tokens</th><th>example</th></tr>"
                    "</thead><tbody>\n");
    for (const auto& p : r.prefixes) {
        fmt::print(out,
                   "<tr><td>{}</td><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>"
                   "<td class=\"n\">{}</td>{}<td>{}</td></tr>\n",
                   esc(p.ends_at), esc(p.model), group_count(p.requests), group_count(p.streams),
                   group_count(p.segments),
                   number_cell(tokens(p.tokens), static_cast<double>(p.tokens)), esc(p.example));
    }
    fmt::print(out, "</tbody></table>\n");
}

void
breaks_view(std::ostream& out, const HtmlReport& r)
{
    fmt::print(out, "<section id=\"breaks\" class=\"view\">\n<h2>Breaks and findings</h2>\n");
    if (r.findings.empty()) {
        fmt::print(out, "<p class=\"note\">No findings.</p>\n");
    } else {
        fmt::print(out,
                   "<p class=\"note\">{} of {} findings, the costliest first; the changed "
                   "characters are highlighted.</p>\n",
                   group_count(r.findings.size()), group_count(r.findings_total));
        filter_box(out, "findings-table", "findings");
        fmt::print(out, "<table id=\"findings-table\" class=\"sortable\"><thead><tr><th>rule</th>"
                        "<th>request</th><th>at</th><th class=\"n\">tokens lost</th><th "
                        "class=\"n\">USD</th></tr></thead><tbody>\n");
        for (const auto& b : r.findings) {
            fmt::print(
                out, "<tr><td><a href=\"#{}\">{}</a> {}</td><td>{}</td><td>{}</td>{}{}</tr>\n",
                esc(b.anchor), esc(b.rule), esc(b.name), esc(b.request), esc(b.path),
                number_cell(b.at_risk ? tokens(b.tokens_lost) + " at risk" : tokens(b.tokens_lost),
                            static_cast<double>(b.tokens_lost)),
                number_cell(usd_or_dash(b.usd), b.usd.value_or(0)));
        }
        fmt::print(out, "</tbody></table>\n");
        for (const auto& b : r.findings) {
            finding_article(out, b);
        }
    }
    prefixes_view(out, r);
    fmt::print(out, "</section>\n");
}

void
caveats_view(std::ostream& out, const HtmlReport& r)
{
    if (r.caveats.empty()) {
        return;
    }
    fmt::print(out, "<section id=\"caveats\">\n<h2>What the figures rest on</h2>\n<ul>\n");
    for (const auto& line : r.caveats) {
        fmt::print(out, "<li>{}</li>\n", esc(line));
    }
    fmt::print(out, "</ul>\n</section>\n");
}

void
aggregation_note(std::ostream& out, const HtmlReport& r)
{
    fmt::print(out, "<footer id=\"aggregated\">\n<h2>What was aggregated</h2>\n");
    if (r.aggregated.empty()) {
        fmt::print(out, "<p class=\"note\">Nothing: every request and finding is drawn.</p>\n");
    } else {
        fmt::print(out, "<ul>\n");
        for (const auto& line : r.aggregated) {
            fmt::print(out, "<li>{}</li>\n", esc(line));
        }
        fmt::print(out, "</ul>\n");
    }
    fmt::print(out,
               "<p class=\"note\">Made by cachewise {} --format html; the numbers are those "
               "of --format json.</p>\n</footer>\n",
               esc(r.command));
}

} // namespace

void
print_html(const HtmlReport& report, std::ostream& out)
{
    html_page_start(out, "cachewise " + report.command, report.command);
    std::set<std::string> anchors;
    for (const auto& b : report.findings) {
        anchors.insert(b.anchor);
    }
    header(out, report);
    out << "<main>\n";
    summary_view(out, report);
    waterfall_view(out, report);
    timeline_view(out, report, anchors);
    hit_view(out, report);
    causes_view(out, report);
    breaks_view(out, report);
    caveats_view(out, report);
    out << "</main>\n";
    aggregation_note(out, report);
    html_page_end(out);
}

} // namespace cachewise::report
