#include "report/html_data.hpp"

#include "account/expected_basis.hpp"
#include "analysis/rule_catalogue.hpp"
#include "report/id_key.hpp"
#include "util/format.hpp"
#include "util/time.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

namespace cachewise::report {

using account::AuditResult;
using account::RequestAudit;
using analysis::AnalysisResult;
using analysis::Finding;

namespace {

constexpr double k_seconds_per_hour = 3600;
constexpr double k_hours_per_week = 168;

// One request as the timeline and the hit-rate chart see it.
struct Point {
    std::string id;
    std::string stream;
    std::string model;
    std::optional<Timestamp> at;
    std::int64_t parts[4] = {0, 0, 0, 0};
    bool counted = false;      // has a hit-rate numerator and denominator
    std::int64_t hit = 0;      // read (audit) or shared (analyze) tokens
    std::int64_t input = 0;    // input tokens
    std::optional<double> ttl; // how long its cache entry lives idle
    std::vector<std::string> breaks;
};

std::string
rule_fix(std::string_view rule)
{
    try {
        return std::string(analysis::rule_info(rule).fix);
    } catch (const std::out_of_range&) {
        return "";
    }
}

// The fix of a finding: a short prompt on an automatic cache (CW012 of
// severity info) has no breakpoint to move; the rule's own fix speaks of one.
// A rotated credential (CW010 credential) is taken out, not moved.
std::string
finding_fix(const Finding& f)
{
    if (f.rule == analysis::rule::k_below_minimum && f.severity == analysis::Severity::info) {
        return "nothing to fix: an automatic cache reads a prompt only from the model's minimum "
               "on, and nothing asked it to cache this one; a longer stable prefix would be "
               "cached";
    }
    if (f.rule == analysis::rule::k_dynamic_field && f.kind == analysis::rule::k_credential_kind) {
        return rule_fix(analysis::rule::k_secret_in_prompt); // a rotated key: take it out
    }
    return rule_fix(f.rule);
}

bool
is_side_stream(std::string_view stream)
{
    return stream.find("/agent-") != std::string_view::npos ||
           stream.find("/sidechain-") != std::string_view::npos;
}

// The idle lifetime of an entry written by a request simulated with
// `policy`: its write class's TTL where the provider has classes, else the
// provider's default; nothing for serving engines (they evict, not expire).
std::optional<double>
idle_ttl(const ruleset::Rules* rules, const std::string& policy, bool one_hour)
{
    if (rules == nullptr || policy.empty() ||
        rules->providers.find(policy) == rules->providers.end()) {
        return std::nullopt;
    }
    const auto& p = rules->provider(policy);
    for (const char* ttl : {one_hour ? "1h" : "5m", "in_memory", "default", "implicit"}) {
        if (p.has(std::string("ttl_seconds.") + ttl)) {
            return p.ttl_seconds(ttl);
        }
    }
    return std::nullopt;
}

BreakView
break_view(const Finding& f, std::string anchor, const IdKey& ids)
{
    BreakView b;
    b.anchor = std::move(anchor);
    b.rule = f.rule;
    b.name = f.name;
    b.severity = std::string(analysis::to_string(f.severity));
    b.kind = f.kind;
    b.request = ids.shorten(f.request);
    b.partner = ids.shorten(f.partner);
    b.stream = f.stream;
    b.path = f.location.path;
    b.token = f.location.token;
    b.tokens_lost = f.tokens_lost;
    b.usd = f.cost_usd;
    b.message = ids.shorten_in(f.message);
    b.fix = finding_fix(f);
    b.excerpt = f.excerpt;
    b.occurrences = f.occurrences;
    return b;
}

// The costliest findings first (dollars, then tokens, then log order), cut
// to the limit; anchors keep the finding's index so they never move.
std::vector<BreakView>
top_findings(const std::vector<Finding>& findings, const std::string& prefix, std::size_t limit,
             const IdKey& ids)
{
    std::vector<std::size_t> order(findings.size());
    for (std::size_t i = 0; i < order.size(); ++i) {
        order[i] = i;
    }
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        const double ca = findings[a].cost_usd.value_or(0);
        const double cb = findings[b].cost_usd.value_or(0);
        if (ca != cb) {
            return ca > cb;
        }
        return findings[a].tokens_lost > findings[b].tokens_lost;
    });
    std::vector<BreakView> out;
    for (std::size_t k = 0; k < order.size() && k < limit; ++k) {
        out.push_back(break_view(findings[order[k]], fmt::format("{}-{}", prefix, order[k]), ids));
    }
    return out;
}

// Findings summed by rule, in order of dollars then tokens lost.
std::vector<CauseRow>
causes_of(const std::vector<Finding>& findings, const std::vector<BreakView>& shown)
{
    std::map<std::string, CauseRow> by_rule;
    std::map<std::string, std::set<std::string>> fixes; // by rule
    for (const auto& f : findings) {
        fixes[f.rule].insert(finding_fix(f));
        auto& row = by_rule[f.rule];
        row.rule = f.rule;
        row.name = f.name;
        row.count += f.occurrences;
        row.tokens_lost += f.tokens_lost;
        if (f.cost_usd) {
            row.cost_usd = row.cost_usd.value_or(0) + *f.cost_usd;
        }
    }
    std::vector<CauseRow> out;
    for (auto& [rule, row] : by_rule) {
        // One fix for the row: the findings' own when they agree.
        row.fix = fixes[rule].size() == 1 ? *fixes[rule].begin() : rule_fix(rule);
        for (const auto& b : shown) {
            if (b.rule == rule) {
                row.first_anchor = b.anchor;
                break;
            }
        }
        out.push_back(std::move(row));
    }
    std::stable_sort(out.begin(), out.end(), [](const CauseRow& a, const CauseRow& b) {
        if (a.cost_usd.value_or(0) != b.cost_usd.value_or(0)) {
            return a.cost_usd.value_or(0) > b.cost_usd.value_or(0);
        }
        return a.tokens_lost > b.tokens_lost;
    });
    return out;
}

bool
all_timed(const std::vector<Point>& points)
{
    return !points.empty() && std::all_of(points.begin(), points.end(),
                                          [](const Point& p) { return p.at.has_value(); });
}

double
position(const Point& p, std::size_t index, bool time_axis, Timestamp origin)
{
    return time_axis ? seconds_between(origin, *p.at) : static_cast<double>(index);
}

// Consecutive requests of one lane as bars: one each, or buckets of equal
// count when the lane has more than the limit.
std::vector<TimelineBar>
lane_bars(const std::vector<const Point*>& points, const std::vector<double>& at, std::size_t limit)
{
    const std::size_t n = points.size();
    const std::size_t per_bar = std::max<std::size_t>(1, (n + limit - 1) / limit);
    std::vector<TimelineBar> bars;
    for (std::size_t i = 0; i < n; i += per_bar) {
        const std::size_t end = std::min(n, i + per_bar);
        TimelineBar bar;
        bar.at = at[i];
        bar.requests = end - i;
        bar.label = bar.requests == 1
                        ? points[i]->id
                        : fmt::format("{} … {} ({})", points[i]->id, points[end - 1]->id,
                                      count_noun(bar.requests, "request"));
        for (std::size_t k = i; k < end; ++k) {
            for (int part = 0; part < 4; ++part) {
                bar.parts[part] += points[k]->parts[part];
            }
            bar.breaks.insert(bar.breaks.end(), points[k]->breaks.begin(), points[k]->breaks.end());
        }
        bars.push_back(std::move(bar));
    }
    return bars;
}

// Idle gaps longer than the entry's TTL, the longest `limit` in time order.
void
lane_gaps(TimelineLane& lane, const std::vector<const Point*>& points,
          const std::vector<double>& at, std::size_t limit)
{
    for (std::size_t i = 1; i < points.size(); ++i) {
        const auto& ttl = points[i - 1]->ttl;
        if (ttl && at[i] - at[i - 1] > *ttl) {
            lane.gaps.push_back({at[i - 1], at[i], *ttl});
        }
    }
    lane.gaps_total = lane.gaps.size();
    std::stable_sort(lane.gaps.begin(), lane.gaps.end(),
                     [](const auto& a, const auto& b) { return a.to - a.from > b.to - b.from; });
    if (lane.gaps.size() > limit) {
        lane.gaps.resize(limit);
    }
    std::sort(lane.gaps.begin(), lane.gaps.end(),
              [](const auto& a, const auto& b) { return a.from < b.from; });
}

TimelineLane
make_lane(std::string name, const std::vector<const Point*>& points, const std::vector<double>& at,
          const HtmlLimits& limits, bool with_gaps)
{
    TimelineLane lane;
    lane.side = is_side_stream(name);
    lane.stream = std::move(name);
    lane.requests = points.size();
    lane.bars = lane_bars(points, at, limits.bars_per_lane);
    if (with_gaps) {
        lane_gaps(lane, points, at, limits.gaps_per_lane);
    }
    return lane;
}

void
set_timeline_note(HtmlReport& report)
{
    if (report.time_axis) {
        report.timeline_note = "Each request a stacked bar of its tokens at its start, time from "
                               "the first request (" +
                               report.origin + "); side calls in lanes of their own.";
    } else if (report.command == "analyze") {
        report.timeline_note = "Requests in start order: analyze keeps no times (audit draws "
                               "them on a clock); side calls in lanes of their own.";
    } else {
        report.timeline_note = "Requests in log order: not every request has a start time; side "
                               "calls in lanes of their own.";
    }
}

// The streams drawn in lanes of their own, in order of first request: all
// of them, or past the limit those with the most requests.
std::vector<std::string>
kept_streams(const std::vector<Point>& points, std::size_t limit)
{
    std::vector<std::string> order;
    std::map<std::string, std::size_t> count;
    for (const auto& p : points) {
        if (count[p.stream]++ == 0) {
            order.push_back(p.stream);
        }
    }
    if (order.size() <= limit) {
        return order;
    }
    std::vector<std::string> top = order;
    std::stable_sort(top.begin(), top.end(),
                     [&](const auto& a, const auto& b) { return count[a] > count[b]; });
    top.resize(limit - 1);
    std::vector<std::string> kept;
    for (const auto& stream : order) {
        if (std::find(top.begin(), top.end(), stream) != top.end()) {
            kept.push_back(stream);
        }
    }
    return kept;
}

void
lane_notes(HtmlReport& report)
{
    for (const auto& lane : report.lanes) {
        if (lane.bars.size() < lane.requests) {
            report.aggregated.push_back(
                fmt::format("timeline: {} of {} drawn as {} of consecutive requests",
                            count_noun(lane.requests, "request"), lane.stream,
                            count_noun(lane.bars.size(), "bar")));
        }
        if (lane.gaps.size() < lane.gaps_total) {
            report.aggregated.push_back(fmt::format(
                "timeline: the {} longest of {} of {} marked", group_count(lane.gaps.size()),
                count_noun(lane.gaps_total, "idle gap"), lane.stream));
        }
    }
}

// One lane per stream in order of first request; past the limit the
// streams with the fewest requests share a last lane (without gaps: its
// requests are of different streams).
void
build_lanes(HtmlReport& report, const std::vector<Point>& points, const HtmlLimits& limits)
{
    report.time_axis = all_timed(points);
    const Timestamp origin = report.time_axis ? *points.front().at : Timestamp{};
    if (report.time_axis) {
        report.origin = format_rfc3339(origin);
    }
    set_timeline_note(report);
    const auto kept = kept_streams(points, limits.lanes);
    struct Members {
        std::vector<const Point*> points;
        std::vector<double> at;
    };
    std::map<std::string, Members> lanes;
    Members rest;
    std::map<std::string, bool> rest_streams;
    for (std::size_t i = 0; i < points.size(); ++i) {
        const bool keep = std::find(kept.begin(), kept.end(), points[i].stream) != kept.end();
        Members& m = keep ? lanes[points[i].stream] : rest;
        m.points.push_back(&points[i]);
        m.at.push_back(position(points[i], i, report.time_axis, origin));
        if (!keep) {
            rest_streams[points[i].stream] = true;
        }
    }
    for (const auto& stream : kept) {
        const Members& m = lanes[stream];
        report.lanes.push_back(make_lane(stream, m.points, m.at, limits, report.time_axis));
    }
    if (!rest.points.empty()) {
        report.lanes.push_back(make_lane(count_noun(rest_streams.size(), "other stream"),
                                         rest.points, rest.at, limits, false));
        report.aggregated.push_back(fmt::format(
            "timeline: the {} with the fewest requests share the last lane ({})",
            count_noun(rest_streams.size(), "stream"), count_noun(rest.points.size(), "request")));
    }
    lane_notes(report);
}

std::string
hour_label(std::int64_t hour)
{
    const std::string t = format_rfc3339(Timestamp{hour * 3'600'000'000LL});
    return t.substr(0, 10) + " " + t.substr(11, 5);
}

// The buckets of one series: by hour (by day past a week) when every
// request has a time and the log spans three hours or more, else by equal
// runs of requests.
std::vector<HitBucket>
hit_buckets(const std::vector<const Point*>& points, bool by_hour, std::int64_t hours_per_bucket,
            std::size_t per_bucket)
{
    std::vector<HitBucket> out;
    std::map<std::int64_t, HitBucket> timed;
    for (std::size_t i = 0; i < points.size(); ++i) {
        const Point& p = *points[i];
        HitBucket* b = nullptr;
        if (by_hour) {
            const std::int64_t hour = p.at->micros / 3'600'000'000LL;
            const std::int64_t start = hour - hour % hours_per_bucket;
            b = &timed[start];
            b->label = hour_label(start);
        } else {
            if (i % per_bucket == 0) {
                const std::size_t last = std::min(points.size(), i + per_bucket);
                out.push_back({last == i + 1
                                   ? group_count(i + 1)
                                   : fmt::format("{}–{}", group_count(i + 1), group_count(last)),
                               0, 0, 0});
            }
            b = &out.back();
        }
        b->requests += 1;
        if (p.counted) {
            b->read += p.hit;
            b->input += p.input;
        }
    }
    for (auto& [start, b] : timed) {
        out.push_back(std::move(b));
    }
    return out;
}

void
build_hit_series(HtmlReport& report, const std::vector<Point>& points, const HtmlLimits& limits)
{
    if (points.empty()) {
        return;
    }
    const bool timed = all_timed(points);
    double span_hours = 0;
    if (timed) {
        span_hours = seconds_between(*points.front().at, *points.back().at) / k_seconds_per_hour;
    }
    const bool by_hour = timed && span_hours >= 3;
    const std::int64_t hours_per_bucket = span_hours > k_hours_per_week ? 24 : 1;
    report.hit_bucket = by_hour ? (hours_per_bucket == 24 ? "day" : "hour") : "requests";
    std::map<std::string, std::vector<const Point*>> by_model;
    std::vector<const Point*> all;
    for (const auto& p : points) {
        all.push_back(&p);
        by_model[p.model].push_back(&p);
    }
    const auto series = [&](std::string name, const std::vector<const Point*>& members) {
        const std::size_t per = std::max<std::size_t>(1, (members.size() + limits.hit_buckets - 1) /
                                                             limits.hit_buckets);
        report.hit_series.push_back(
            {std::move(name), hit_buckets(members, by_hour, hours_per_bucket, per)});
    };
    series("all streams", all);
    std::vector<std::pair<std::string, std::size_t>> models;
    models.reserve(by_model.size());
    for (const auto& [model, members] : by_model) {
        models.emplace_back(model, members.size());
    }
    std::stable_sort(models.begin(), models.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
    if (models.size() > 1) {
        for (std::size_t i = 0; i < models.size() && i < limits.models; ++i) {
            series(models[i].first.empty() ? "(no model)" : models[i].first,
                   by_model[models[i].first]);
        }
        if (models.size() > limits.models) {
            report.aggregated.push_back(fmt::format("hit rate: {} of {} drawn, by requests",
                                                    group_count(limits.models),
                                                    count_noun(models.size(), "model")));
        }
    }
}

} // namespace

namespace {

HtmlCard
card(std::string id, std::string label, std::string value, std::string raw, std::string json,
     std::string note = "")
{
    return {std::move(id),  std::move(label), std::move(value),
            std::move(raw), std::move(json),  std::move(note)};
}

std::string
raw_number(double v)
{
    return fmt::format("{}", v + 0.0); // -0 + 0 is 0: no "-0" in the page
}

void
severity_cards(HtmlReport& report, const std::vector<Finding>& findings)
{
    for (const auto severity :
         {analysis::Severity::error, analysis::Severity::warning, analysis::Severity::info}) {
        const auto n = static_cast<std::int64_t>(
            std::count_if(findings.begin(), findings.end(),
                          [&](const Finding& f) { return f.severity == severity; }));
        const std::string name(analysis::to_string(severity));
        report.cards.push_back(card("findings-" + name, "findings: " + name, group_digits(n),
                                    std::to_string(n), "findings#severity=" + name));
    }
}

// Why no cost is shown: costs are of reported usage, so a log without any
// is not sent to the price file.
std::string
why_unpriced(const account::Totals& t)
{
    return t.with_usage == 0 ? "no request reports usage" : "no price in rules/pricing.json";
}

void
audit_cards(HtmlReport& report, const AuditResult& r)
{
    const auto& t = r.totals;
    report.cards.push_back(card("requests", "requests", group_count(t.requests),
                                std::to_string(t.requests), "totals.requests",
                                fmt::format("{} with usage · {} priced", group_count(t.with_usage),
                                            group_count(t.priced))));
    const std::string reads = fmt::format("{} of {} read from the cache", group_count(t.with_read),
                                          count_noun(t.with_usage, "request"));
    // No reported usage: "n/a" (JSON null), never a 0% that reads as all missed.
    const auto rate = t.hit_rate();
    report.cards.push_back(rate ? card("hit-rate", "token-weighted hit rate", format_percent(*rate),
                                       raw_number(*rate), "totals.hit_rate", reads)
                                : card("hit-rate", "token-weighted hit rate", "n/a", "", "",
                                       "no request reports usage"));
    // Without a price the text output prints no cost: the page says so
    // rather than showing 0.000000.
    const bool priced = t.priced > 0;
    const auto cost = [&](std::string id, std::string label, double v, std::string json,
                          std::string note) {
        report.cards.push_back(priced ? card(std::move(id), std::move(label), format_usd(v),
                                             raw_number(v), std::move(json), std::move(note))
                                      : card(std::move(id), std::move(label),
                                             t.with_usage == 0 ? "n/a" : "unpriced", "", "",
                                             why_unpriced(t)));
    };
    cost("actual", "actual cost (USD)", t.actual.total(), "totals.cost_usd.actual.total",
         "at the reported usage");
    cost("no-cache", "without caching (USD)", t.no_cache.total(), "totals.cost_usd.no_cache.total",
         "");
    cost("ideal", "ideal (USD, a lower bound)", t.ideal.total(), "totals.cost_usd.ideal.total", "");
    cost("savings", "net savings (USD)", t.read_savings - t.write_premium, "totals.net_savings_usd",
         fmt::format("reads saved {} · writes cost {} more", format_usd(t.read_savings),
                     format_usd(t.write_premium)));
    severity_cards(report, r.findings);
}

void
audit_waterfall(HtmlReport& report, const AuditResult& r,
                const std::optional<PlacementReplay>& placement)
{
    const auto& t = r.totals;
    const bool priced = t.priced > 0;
    const auto amount = [&](double v) { return priced ? std::optional<double>(v) : std::nullopt; };
    report.waterfall = {
        {"no-cache", "no caching", amount(t.no_cache.total()), true,
         "totals.cost_usd.no_cache.total", "every input token at the base price"},
        {"read-savings", "what caching saved", amount(-t.read_savings), false,
         "-totals.read_savings_usd", "reads below the base price"},
        {"write-premium", "write premium", amount(t.write_premium), false,
         "totals.write_premium_usd", "writes above the base price"},
        {"actual", "actual", amount(t.actual.total()), true, "totals.cost_usd.actual.total",
         "the reported usage"},
        {"placement", "suggested placement", std::nullopt, false, "",
         "not computed: only --format html replays suggest's placement"},
        {"ideal", "ideal", amount(t.ideal.total()), true, "totals.cost_usd.ideal.total",
         "everything shared with a live partner read (a lower bound)"},
    };
    if (priced && placement && placement->families > 0) {
        auto& step = report.waterfall[4];
        step.usd = placement->suggested_usd - placement->current_usd;
        step.json = "suggest:saving";
        step.note =
            fmt::format("suggest's placement replayed on {}: input {} → "
                        "{} USD, simulated",
                        count_noun(placement->families, "template family", "template families"),
                        format_usd(placement->current_usd), format_usd(placement->suggested_usd));
    } else if (placement) {
        report.waterfall[4].note = t.with_usage == 0
                                       ? "not computed: no request reports usage"
                                       : "not computed: no template family with a price to replay";
    }
    if (!priced) {
        for (auto& step : report.waterfall) {
            step.json.clear();
        }
    }
    report.waterfall_note =
        priced ? "Totals start from zero; the steps between them float. Priced requests only: "
                 "no caching minus the savings plus the premium is the actual cost up to "
                 "rounding. The suggested placement's step is what suggest's replay of the same "
                 "requests saves on input against their own breakpoints, taken from the actual "
                 "cost."
               : fmt::format("No request was priced ({}): no costs to draw.", why_unpriced(t));
}

std::vector<Point>
audit_points(const AuditResult& r, const ruleset::Rules* rules, const std::vector<BreakView>& shown,
             const IdKey& ids)
{
    std::vector<Point> points;
    points.reserve(r.requests.size());
    for (const auto& a : r.requests) {
        Point p;
        p.id = ids.shorten(a.id);
        p.stream = a.stream;
        p.model = a.model;
        p.at = a.started_at;
        const account::Split s = a.reported ? *a.reported : a.expected;
        p.parts[0] = s.read;
        p.parts[1] = s.write_5m;
        p.parts[2] = s.write_1h;
        p.parts[3] = s.fresh;
        p.counted = a.reported.has_value();
        p.hit = s.read;
        p.input = s.input();
        p.ttl = idle_ttl(rules, a.policy, s.write_1h > 0);
        for (const auto i : a.findings) {
            const std::string anchor = fmt::format("f-{}", i);
            const bool on_page = std::any_of(
                shown.begin(), shown.end(), [&](const BreakView& b) { return b.anchor == anchor; });
            p.breaks.push_back(on_page ? anchor : r.findings[i].rule);
        }
        points.push_back(std::move(p));
    }
    return points;
}

// audit --by in the page: the groups with the most requests, in key order.
void
audit_groups(HtmlReport& report, const AuditResult& r, const std::string& by, std::size_t limit)
{
    report.by = by;
    for (const auto& [key, t] : r.by(by)) {
        const bool priced = t.priced > 0;
        report.groups.push_back(
            {key, t.requests, t.hit_rate(),
             priced ? std::optional<double>(t.actual.total()) : std::nullopt,
             priced ? std::optional<double>(t.no_cache.total()) : std::nullopt,
             t.with_reported_cost > 0 ? std::optional<double>(t.reported_cost) : std::nullopt});
    }
    report.groups_total = report.groups.size();
    if (report.groups.size() > limit) {
        std::stable_sort(
            report.groups.begin(), report.groups.end(),
            [](const GroupRow& a, const GroupRow& b) { return a.requests > b.requests; });
        report.groups.resize(limit);
        std::sort(report.groups.begin(), report.groups.end(),
                  [](const GroupRow& a, const GroupRow& b) { return a.key < b.key; });
        report.aggregated.push_back(fmt::format("by {}: the {} of {} with the most requests", by,
                                                group_count(limit),
                                                count_noun(report.groups_total, "group")));
    }
}

void
cut_note(HtmlReport& report)
{
    if (report.findings.size() < report.findings_total) {
        report.aggregated.push_back(fmt::format("findings: the {} costliest of {} shown",
                                                group_count(report.findings.size()),
                                                group_count(report.findings_total)));
    }
}

// Request ids without the folder they share, which the page does not name:
// it holds no path of the run, so the same logs give the same page wherever
// they lie.
template <typename Rows, typename IdOf>
IdKey
ids_of(const Rows& rows, IdOf id_of)
{
    std::vector<std::string_view> all;
    all.reserve(rows.size());
    for (const auto& row : rows) {
        all.push_back(id_of(row));
    }
    return IdKey(all);
}

std::vector<analysis::HotPrefix>
relative_examples(std::vector<analysis::HotPrefix> prefixes, const IdKey& ids)
{
    for (auto& p : prefixes) {
        p.example = std::string(ids.shorten(p.example));
    }
    return prefixes;
}

} // namespace

HtmlReport
html_from_audit(const AuditResult& r, const ruleset::Rules* rules, const HtmlLimits& limits,
                const std::optional<PlacementReplay>& placement,
                const std::optional<std::string>& by)
{
    HtmlReport report;
    report.command = "audit";
    report.summary = fmt::format("{} in {} · {} with usage · {} priced",
                                 count_noun(r.totals.requests, "request"),
                                 count_noun(r.analysis.streams, "stream"),
                                 group_count(r.totals.with_usage), group_count(r.totals.priced));
    if (!r.unpriced_models.empty()) {
        report.summary += fmt::format(" · unpriced (no price in rules/pricing.json): {}",
                                      fmt::join(r.unpriced_models, ", "));
    }
    audit_cards(report, r);
    if (auto caveat = account::estimated_caveat(account::expected_basis(r)); !caveat.empty()) {
        report.caveats.push_back(std::move(caveat));
    }
    report.caveats.insert(report.caveats.end(), r.notes.begin(), r.notes.end());
    audit_waterfall(report, r, placement);
    if (by) {
        audit_groups(report, r, *by, limits.groups);
    }
    const IdKey ids =
        ids_of(r.requests, [](const account::RequestAudit& a) -> std::string_view { return a.id; });
    report.findings = top_findings(r.findings, "f", limits.findings, ids);
    report.findings_total = r.findings.size();
    report.causes = causes_of(r.findings, report.findings);
    report.timeline_parts = {"read", "write 5m", "write 1h", "fresh"};
    report.hit_label = "hit rate";
    const auto points = audit_points(r, rules, report.findings, ids);
    build_lanes(report, points, limits);
    build_hit_series(report, points, limits);
    report.prefixes = relative_examples(r.analysis.hot_prefixes, ids);
    cut_note(report);
    return report;
}

HtmlReport
html_from_analysis(const AnalysisResult& r, const HtmlLimits& limits)
{
    HtmlReport report;
    report.command = "analyze";
    report.summary = fmt::format("{} in {} · {} input tokens", count_noun(r.requests, "request"),
                                 count_noun(r.streams, "stream"), group_digits(r.input_tokens));
    std::vector<Finding> findings = r.findings; // numbered as --format json lists them
    findings.insert(findings.end(), r.dynamic_fields.begin(), r.dynamic_fields.end());
    report.cards = {
        card("requests", "requests", group_count(r.requests), std::to_string(r.requests),
             "summary.requests",
             fmt::format("{} · {}", count_noun(r.streams, "stream"),
                         count_noun(r.cold_starts, "cold start"))),
        card("reuse", "reuse potential", format_percent(r.reuse_potential()),
             raw_number(r.reuse_potential()), "summary.reuse_potential",
             "tokens shared with the partner ÷ input tokens"),
        card("breaks", "breaks", group_count(r.breaks), std::to_string(r.breaks), "summary.breaks"),
        card("tokens-lost", "tokens lost to breaks", group_digits(r.tokens_lost),
             std::to_string(r.tokens_lost), "summary.tokens_lost"),
    };
    if (r.cost_lost_usd) {
        report.cards.push_back(card("cost-lost", "cost of the breaks (USD, estimated)",
                                    format_usd(*r.cost_lost_usd), raw_number(*r.cost_lost_usd),
                                    "summary.cost_lost_usd"));
    }
    severity_cards(report, findings);
    report.waterfall_note = "Costs come from cachewise audit: analyze reads no usage and prices "
                            "only the tokens lost to breaks.";
    const IdKey ids = ids_of(
        r.outcomes, [](const analysis::RequestOutcome& o) -> std::string_view { return o.id; });
    report.findings = top_findings(findings, "f", limits.findings, ids);
    report.findings_total = findings.size();
    for (auto& b : report.findings) {
        b.at_risk = std::stoul(b.anchor.substr(2)) >= r.findings.size(); // "f-N"
    }
    for (const auto& c : r.causes) {
        CauseRow row{c, "", rule_fix(c.rule)};
        for (const auto& b : report.findings) {
            if (b.rule == c.rule && row.first_anchor.empty()) {
                row.first_anchor = b.anchor;
            }
        }
        report.causes.push_back(std::move(row));
    }
    report.timeline_parts = {"shared with the partner", "", "", "not shared"};
    report.hit_label = "reuse potential";
    std::vector<Point> points;
    for (const auto& o : r.outcomes) {
        Point p;
        p.id = ids.shorten(o.id);
        p.stream = o.stream;
        p.parts[0] = o.shared_tokens;
        p.parts[3] = o.prompt_tokens - o.shared_tokens;
        p.counted = o.status != analysis::RequestOutcome::Status::not_logged;
        p.hit = o.shared_tokens;
        p.input = o.prompt_tokens;
        if (o.finding) {
            p.breaks.push_back(fmt::format("f-{}", *o.finding));
        }
        points.push_back(std::move(p));
    }
    build_lanes(report, points, limits);
    build_hit_series(report, points, limits);
    report.prefixes = relative_examples(r.hot_prefixes, ids);
    cut_note(report);
    return report;
}

} // namespace cachewise::report
