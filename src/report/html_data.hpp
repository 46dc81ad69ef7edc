#pragma once

#include "account/auditor.hpp"
#include "analysis/analyzer.hpp"
#include "ruleset/rules.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cachewise::report {

// What the HTML report shows, computed from an audit or an analysis before
// any markup is written: the six views with their numbers, already
// aggregated to the page's limits. Strings are plain text (escaped when
// rendered); numbers are raw and formatted by the renderer.

struct HtmlCard {
    std::string id;    // stable: "requests", "hit-rate", ...
    std::string label; // "token-weighted hit rate"
    std::string value; // as the text output writes it: "70.8%"
    std::string raw;   // the machine value behind it, as --format json has it
    std::string json;  // where --format json has it: "totals.hit_rate"
    std::string note;  // a second line, may be empty
};

// One step of the cost waterfall: a total (a bar from zero) or a change
// (a floating bar); nothing when the command did not compute it.
struct WaterfallStep {
    std::string id;
    std::string label;
    std::optional<double> usd;
    bool total = false;
    std::string json; // where --format json has it; a leading '-' negates
    std::string note;
};

// A request, or a bucket of consecutive requests of one stream.
struct TimelineBar {
    std::string label; // request id, or "first … last"
    double at = 0;     // seconds from the report's origin (request index without times)
    std::size_t requests = 1;
    std::int64_t parts[4] = {0, 0, 0, 0}; // in the order of HtmlReport::timeline_parts
    std::vector<std::string> breaks;      // anchors of the findings at this bar (breaks and others)
};

// An idle gap in a stream longer than the cache's TTL: the entry expired at
// from + ttl, before the next request at `to`.
struct TimelineGap {
    double from = 0;
    double to = 0;
    double ttl = 0;
};

struct TimelineLane {
    std::string stream;
    bool side = false; // a side call: a Claude Code subagent or sidechain
    std::size_t requests = 0;
    std::vector<TimelineBar> bars;
    std::vector<TimelineGap> gaps;
    std::size_t gaps_total = 0; // before the top-N cut
};

struct HitBucket {
    std::string label;
    std::size_t requests = 0;
    std::int64_t read = 0;  // read tokens (audit) or shared tokens (analyze)
    std::int64_t input = 0; // input tokens
};

struct HitSeries {
    std::string name; // "all streams" or a model
    std::vector<HitBucket> buckets;
};

// A cause as analyze sums it (for audit: summed from its findings), and
// where the page shows it.
struct CauseRow : analysis::CauseSummary {
    std::string first_anchor; // the first of its findings shown on the page
    std::string fix;
};

struct BreakView {
    std::string anchor; // "f-12": stable, from the finding's index
    std::string rule;
    std::string name;
    std::string severity;
    std::string kind;
    std::string request;
    std::string partner;
    std::string stream;
    std::string path;
    std::optional<std::int64_t> token;
    std::int64_t tokens_lost = 0;
    std::optional<double> usd;
    std::string message;
    std::string fix;
    std::optional<analysis::Excerpt> excerpt;
    std::size_t occurrences = 1;
    // analyze's dynamic values: what a change would spoil, nothing lost yet.
    bool at_risk = false;
};

// What suggest's placement would change, replayed by the command on the
// same requests (audit --format html runs suggest's replay): input-side
// costs of the template families that have a price.
struct PlacementReplay {
    double current_usd = 0;   // the requests' own breakpoints, simulated
    double suggested_usd = 0; // suggest's placement, simulated
    std::size_t families = 0; // families replayed with a price
};

// One row of audit --by in the summary: totals of a day, stream or model.
struct GroupRow {
    std::string key;
    std::size_t requests = 0;
    std::optional<double> hit_rate;   // nothing when none of its requests reports usage
    std::optional<double> actual_usd; // nothing when none of its requests is priced
    std::optional<double> no_cache_usd;
    // The cost the log reports for its requests rules/pricing.json does not
    // price: shown in the actual cell, marked "reported".
    std::optional<double> reported_cost_usd;
};

struct HtmlLimits {
    std::size_t lanes = 12;          // streams drawn, by requests; the rest summed into one lane
    std::size_t bars_per_lane = 160; // beyond it consecutive requests share a bar
    std::size_t gaps_per_lane = 20;  // the longest idle gaps marked
    std::size_t hit_buckets = 48;
    std::size_t models = 4; // hit-rate series besides "all streams"
    std::size_t findings = 60;
    std::size_t groups = 200; // rows of --by, the most requests first
};

struct HtmlReport {
    std::string command; // "audit" or "analyze"
    std::string summary; // one line under the title
    std::vector<HtmlCard> cards;
    std::string by;               // audit --by: "day", "stream" or "model"; empty without
    std::vector<GroupRow> groups; // in key order
    std::size_t groups_total = 0; // before the cut
    std::vector<WaterfallStep> waterfall;
    std::string waterfall_note;
    bool time_axis = false;    // lanes on seconds; else on request order
    std::string origin;        // the first request's start when time_axis (from the log)
    std::string timeline_note; // how the lanes are drawn, in words
    std::vector<std::string> timeline_parts;
    std::vector<TimelineLane> lanes;
    std::string hit_label;  // "hit rate" or "reuse potential"
    std::string hit_bucket; // "hour" or "requests"
    std::vector<HitSeries> hit_series;
    std::vector<CauseRow> causes;
    std::vector<BreakView> findings; // the costliest first
    std::size_t findings_total = 0;
    std::vector<analysis::HotPrefix> prefixes;
    std::vector<std::string> aggregated; // what was summed or cut, in words
    // What the figures rest on, as the text report says it: estimated caches,
    // second-hand prices, replay notes.
    std::vector<std::string> caveats;
};

// `rules` gives each provider's TTL for the idle gaps; without it no gap is marked.
// `placement`: the waterfall's suggested-placement step; without it the
// step is "not computed".
HtmlReport html_from_audit(const account::AuditResult& result, const ruleset::Rules* rules,
                           const HtmlLimits& limits,
                           const std::optional<PlacementReplay>& placement = std::nullopt,
                           const std::optional<std::string>& by = std::nullopt);
HtmlReport html_from_analysis(const analysis::AnalysisResult& result, const HtmlLimits& limits);

} // namespace cachewise::report
