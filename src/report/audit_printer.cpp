#include "report/audit_printer.hpp"

#include "report/finding_json.hpp"
#include "report/html_report.hpp"
#include "report/id_key.hpp"
#include "report/load_notes.hpp"
#include "report/request_json.hpp"
#include "report/text_table.hpp"
#include "util/escape.hpp"
#include "util/format.hpp"
#include "util/time.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>

namespace cachewise::report {

using account::AuditResult;
using account::Money;
using account::RequestAudit;
using account::Split;
using account::Totals;

namespace {

std::string
pct(double f)
{
    return format_percent(f);
}

// A rate with nothing under it is "n/a", never 0.0%: a log without reported
// usage has not missed its cache, it has not said.
std::string
reported_rate(const Totals& t)
{
    const auto rate = t.hit_rate();
    return rate ? pct(*rate) : "n/a";
}

std::string
usd(double v)
{
    return format_usd(v);
}

std::string
split_text(const Split& s)
{
    return fmt::format("read {} · write 5m {} · 1h {} · fresh {} · output {}", group_digits(s.read),
                       group_digits(s.write_5m), group_digits(s.write_1h), group_digits(s.fresh),
                       group_digits(s.output));
}

std::string
split_short(const Split& s)
{
    return fmt::format("{}/{}/{}/{}", group_digits(s.read), group_digits(s.write_5m),
                       group_digits(s.write_1h), group_digits(s.fresh));
}

Json
split_json(const Split& s)
{
    return Json{{"read", s.read},   {"write_5m", s.write_5m}, {"write_1h", s.write_1h},
                {"fresh", s.fresh}, {"output", s.output},     {"input", s.input()}};
}

Json
money_json(const Money& m)
{
    return Json{{"fresh", m.fresh}, {"write_5m", m.write_5m}, {"write_1h", m.write_1h},
                {"read", m.read},   {"output", m.output},     {"total", m.total()}};
}

Json
totals_json(const Totals& t)
{
    // Sums over priced requests: with none, unpriced (null), never 0 USD.
    const auto usd = [&](double v) { return t.priced > 0 ? Json(v) : Json(nullptr); };
    const Json cost = t.priced > 0 ? Json{{"actual", money_json(t.actual)},
                                          {"no_cache", money_json(t.no_cache)},
                                          {"expected", money_json(t.expected_cost)},
                                          {"ideal", money_json(t.ideal)}}
                                   : Json(nullptr);
    return Json{
        {"requests", t.requests},
        {"with_usage", t.with_usage},
        {"with_read", t.with_read},
        {"priced", t.priced},
        {"with_reported_cost", t.with_reported_cost},
        {"reported_cost_usd", t.with_reported_cost > 0 ? Json(t.reported_cost) : Json(nullptr)},
        {"hit_rate", t.hit_rate() ? Json(*t.hit_rate()) : Json(nullptr)},
        {"reported", split_json(t.reported)},
        {"expected", split_json(t.expected_shown())},
        {"expected_without_usage",
         t.uncompared() ? split_json(t.expected_without_usage) : Json(nullptr)},
        {"cost_usd", cost},
        {"expected_hit_rate", t.expected_hit_rate()},
        {"lost_to_granularity", t.lost_to_granularity},
        {"lost_to_eviction", t.lost_to_eviction},
        {"write_premium_usd", usd(t.write_premium)},
        {"read_savings_usd", usd(t.read_savings)},
        {"net_savings_usd", usd(t.read_savings - t.write_premium)}};
}

void
cost_rows(const AuditResult& r, std::ostream& out, bool markdown)
{
    const Totals& t = r.totals;
    const std::string expected = !r.policy.empty() ? fmt::format("expected ({}'s cache)", r.policy)
                                 : r.policies.empty() ? std::string("expected (as reported)")
                                                      : std::string("expected (documented cache)");
    // Amounts of $10,000 and more widen their column rather than shift the row.
    TextTable table("<27 >12 >11 >11 >11 >11 >11");
    const auto row = [&](std::string_view name, const Money& m) {
        if (markdown) {
            fmt::print(out, "| {} | {} | {} | {} | {} | {} | {} |\n", name, usd(m.total()),
                       usd(m.fresh), usd(m.write_5m), usd(m.write_1h), usd(m.read), usd(m.output));
        } else {
            table.add_row({std::string(name), usd(m.total()), usd(m.fresh), usd(m.write_5m),
                           usd(m.write_1h), usd(m.read), usd(m.output)});
        }
    };
    if (markdown) {
        fmt::print(out, "| cost (USD) | total | fresh | write 5m | write 1h | read | output |\n");
        fmt::print(out, "|---|---:|---:|---:|---:|---:|---:|\n");
    } else {
        table.add_row({"cost (USD)", "total", "fresh", "write 5m", "write 1h", "read", "output"});
    }
    row("actual (reported usage)", t.actual);
    row("no caching", t.no_cache);
    row(expected, t.expected_cost);
    row("ideal (lower bound)", t.ideal);
    if (!markdown) {
        table.print(out);
    }
}

// On what the expected side rests. Anthropic's cache turns on breakpoints:
// where Claude Code logged none, its placement was assumed, not the
// requests' own.
std::string
basis_text(const AuditResult& r, const account::ExpectedBasis& basis)
{
    switch (basis.kind) {
    case account::ExpectedBasis::Kind::forced_policy:
        return fmt::format("{}'s cache for every request; reported usage not compared",
                           basis.forced);
    case account::ExpectedBasis::Kind::anthropic:
        if (r.assumed_breakpoints == 0) {
            return "Anthropic's documented cache, the requests' own breakpoints";
        }
        return r.assumed_breakpoints == r.totals.requests
                   ? "Anthropic's documented cache, Claude Code's placement assumed"
                   : "Anthropic's documented cache, the requests' own breakpoints, Claude Code's "
                     "placement assumed where none is logged";
    case account::ExpectedBasis::Kind::each_provider:
        return fmt::format("each provider's documented cache: {}", fmt::join(basis.policies, ", "));
    case account::ExpectedBasis::Kind::none:
        break;
    }
    return "nothing simulated: no request's prompt is logged, so the reported usage stands in";
}

// The first lines: what was read, reported and expected, and on what basis.
void
text_summary(const AuditResult& r, const AuditPrintOptions& o, std::ostream& out)
{
    const Totals& t = r.totals;
    fmt::print(out, "cachewise audit: {} in {} · {} with usage · {} priced\n",
               count_noun(t.requests, "request"), count_noun(r.analysis.streams, "stream"),
               group_count(t.with_usage), group_count(t.priced));
    if (t.with_usage > 0) {
        fmt::print(out, "  reported  {}\n", split_text(t.reported));
    } else {
        fmt::print(out, "  reported  none: no request reports usage\n");
    }
    const std::string what = basis_text(r, o.basis);
    fmt::print(out, "  expected  {}  ({})\n", split_text(t.expected_shown()), what);
    if (t.uncompared()) {
        // The two sides cover the same requests: those that report usage.
        fmt::print(out,
                   "            not compared: {} without reported usage (an error answer, a "
                   "response not logged), whose simulation gives {}\n",
                   count_noun(t.requests - t.with_usage, "request"),
                   split_text(t.expected_without_usage));
    }
    if (const auto caveat = account::estimated_caveat(o.basis); !caveat.empty()) {
        fmt::print(out, "  {}\n", caveat);
    }
}

// Hit rates, new-or-expired and warm, percentiles, and the notes of the replay.
void
text_hit_rates(const AuditResult& r, std::ostream& out)
{
    const Totals& t = r.totals;
    fmt::print(out,
               "  hit rate {} token-weighted (Σread ÷ Σinput) · {} of {} read from the cache\n",
               reported_rate(t), group_count(t.with_read), count_noun(t.with_usage, "request"));
    if (!r.policy.empty() || t.lost_to_granularity > 0 || t.lost_to_eviction > 0) {
        fmt::print(out,
                   "  expected hit rate {} · shared tokens not read: {} to block, step or unit "
                   "granularity, {} to eviction\n",
                   pct(t.expected_hit_rate()), group_digits(t.lost_to_granularity),
                   group_digits(t.lost_to_eviction));
    }
    fmt::print(out, "  new or expired {}, hit rate {} · warm {}, hit rate {}{}\n",
               count_noun(r.new_or_expired.requests, "request"), reported_rate(r.new_or_expired),
               count_noun(r.warm.requests, "request"), reported_rate(r.warm),
               r.analysis.not_logged > 0 ? fmt::format(" · neither: {} whose prompt is not logged",
                                                       group_count(r.analysis.not_logged))
                                         : std::string());
    if (r.hit_ratio.count > 0) {
        fmt::print(out, "  per-request hit ratio p50 {} · p95 {}", pct(r.hit_ratio.p50),
                   pct(r.hit_ratio.p95));
        if (r.ttft_warm.count > 0 || r.ttft_new_or_expired.count > 0) {
            // A group without a logged first token is n/a, not 0.00 s.
            const auto seconds = [](const account::Distribution& d) {
                return d.count > 0 ? fmt::format("{:.2f}/{:.2f} s", d.p50, d.p95)
                                   : std::string("n/a");
            };
            fmt::print(out, " · time to first token p50/p95 warm {}, new or expired {}",
                       seconds(r.ttft_warm), seconds(r.ttft_new_or_expired));
        }
        fmt::print(out, "\n");
    }
    for (const auto& note : r.notes) {
        fmt::print(out, "  note: {}\n", note);
    }
    if (r.assumed_breakpoints > 0) {
        fmt::print(out,
                   "  {} no cache_control (Claude Code): simulated with Claude Code's placement "
                   "(end of the system prompt and the last block)\n",
                   r.assumed_breakpoints == 1
                       ? "1 request logs"
                       : count_noun(r.assumed_breakpoints, "request") + " log");
    }
}

// The cost table and what the log prices itself or leaves unpriced.
void
text_costs(const AuditResult& r, std::ostream& out)
{
    const Totals& t = r.totals;
    if (t.priced > 0) {
        fmt::print(out, "\n");
        cost_rows(r, out, false);
        fmt::print(out, "  write premium {} · read savings {} · net {} USD\n", usd(t.write_premium),
                   usd(t.read_savings), usd(t.read_savings - t.write_premium));
    }
    if (t.with_reported_cost > 0) {
        fmt::print(out,
                   "  cost reported by the log: {} USD for {} that rules/pricing.json "
                   "does not price (reported, not computed)\n",
                   usd(t.reported_cost), count_noun(t.with_reported_cost, "request"));
    }
    if (!r.unpriced_models.empty()) {
        fmt::print(out, "  unpriced (no price in rules/pricing.json): {}\n",
                   fmt::join(r.unpriced_models, ", "));
    }
}

void
text_compute(const AuditResult& r, std::ostream& out)
{
    if (r.compute.enabled) {
        const auto& c = r.compute;
        fmt::print(out, "\nCompute saved by cache reads ({} on {}{})\n", c.model, c.gpu,
                   c.measured ? ", measured profile" : ", modelled, not measured");
        if (c.reference) {
            fmt::print(out,
                       "  the logged models' shapes are not public: {} stands in as a reference\n",
                       c.model);
        }
        fmt::print(out,
                   "  prefill FLOPs saved {:.3e} · GPU time saved {:.2f} s · FLOPs spent on writes "
                   "never read "
                   "{:.3e} · KV held by live entries {}\n",
                   c.saved_flops, c.saved_seconds, c.unread_write_flops,
                   human_bytes(static_cast<std::uint64_t>(c.live_kv_bytes)));
    }
}

// One line per finding; the messages start in one column.
void
text_findings(const AuditResult& r, const IdKey& ids, std::ostream& out)
{
    const std::string note = ids.note();
    fmt::print(out, "\nFindings{}\n", note.empty() ? "" : " (" + note + ")");
    TextTable table("<5 <19 <10 <0");
    for (const auto& f : r.findings) {
        table.add_row(
            {f.rule, f.name, std::string(ids.shorten(f.request)),
             fmt::format("{}{}{}", f.kind.empty() ? "" : "(" + f.kind + ") ",
                         ids.shorten_in(f.message),
                         f.occurrences > 1 ? " [×" + group_count(f.occurrences) + "]" : "")});
    }
    table.print(out);
}

// A money cell of a group without a price: none of its requests reports
// usage (nothing to price), or its models are not in rules/pricing.json.
std::string
unpriced_cell(const Totals& g)
{
    return g.with_usage == 0 ? "no usage" : "unpriced";
}

// A group's money cell: its amount when priced, else why not.
std::string
group_money(const Totals& g, double amount)
{
    return g.priced > 0 ? usd(amount) : unpriced_cell(g);
}

// A group's actual cost: at the rules' prices, plus the cost the log reports
// for its requests the rules do not price, marked "*" (group_footnote).
// An unpriced group is "unpriced", never 0.000000.
std::string
group_actual(const Totals& g)
{
    if (g.with_reported_cost > 0) {
        return usd(g.actual.total() + g.reported_cost) + " *";
    }
    return group_money(g, g.actual.total());
}

std::string
group_footnote(const std::map<std::string, Totals>& groups)
{
    const bool any = std::any_of(groups.begin(), groups.end(),
                                 [](const auto& kv) { return kv.second.with_reported_cost > 0; });
    return any ? "* with the cost the log reports for requests rules/pricing.json does not price "
                 "(reported, not computed); no-cache and saved cover the priced ones only"
               : "";
}

// --by: a table of totals by day, stream or model.
void
text_by(const AuditResult& r, const std::string& by, std::ostream& out)
{
    fmt::print(out, "\nBy {}\n", by);
    TextTable table("<40 >8 >9 >12 >12 >12");
    table.add_row({by, "requests", "hit rate", "actual USD", "no-cache USD", "saved USD"});
    const auto groups = r.by(by);
    for (const auto& [key, g] : groups) {
        table.add_row({key, group_count(g.requests), reported_rate(g), group_actual(g),
                       group_money(g, g.no_cache.total()),
                       group_money(g, g.no_cache.total() - g.actual.total())});
    }
    table.print(out);
    if (const auto note = group_footnote(groups); !note.empty()) {
        fmt::print(out, "  {}\n", note);
    }
}

// The analysis status, except that a "cold" request the provider reports
IdKey
ids_of(const AuditResult& r)
{
    std::vector<std::string_view> all_ids;
    for (const auto& a : r.requests) {
        all_ids.push_back(a.id);
    }
    return IdKey(all_ids);
}

// reading from the cache was warmed by traffic the log does not hold: "cold"
// beside its reads would contradict the usage.
std::string
status_label(const RequestAudit& a)
{
    if (a.status == analysis::RequestOutcome::Status::cold && a.reported && a.reported->read > 0) {
        return "cold, read elsewhere";
    }
    return std::string(analysis::to_string(a.status));
}

// --details: one line per request.
void
text_details(const AuditResult& r, const IdKey& ids, std::ostream& out)
{
    const std::string note = ids.note();
    fmt::print(out, "\nRequests (read/write 5m/write 1h/fresh{})\n",
               note.empty() ? "" : "; " + note);
    // Every column is as wide as its longest cell: the columns stay aligned.
    TextTable table("<28 <24 <17 >26 >26 >11  <0");
    table.add_row({"id", "started", "status", "reported", "expected", "actual USD", "findings"});
    for (const auto& a : r.requests) {
        std::string rules;
        for (const auto i : a.findings) {
            rules += (rules.empty() ? "" : ",") + r.findings[i].rule;
        }
        if (a.not_judged) {
            rules += (rules.empty() ? "" : ",") + std::string("not judged");
        }
        table.add_row({std::string(ids.shorten(a.id)),
                       a.started_at ? format_rfc3339(*a.started_at) : "-", status_label(a),
                       a.reported ? split_short(*a.reported) : "-",
                       a.simulated ? split_short(a.expected) : "-",
                       a.priced ? usd(a.actual.total()) : "-", rules});
    }
    table.print(out);
}

void
text(const AuditResult& r, const ingest::LoadSummary& load, const AuditPrintOptions& o,
     std::ostream& out)
{
    text_summary(r, o, out);
    text_hit_rates(r, out);
    text_costs(r, out);
    text_compute(r, out);
    const IdKey ids = ids_of(r);
    if (!r.findings.empty()) {
        text_findings(r, ids, out);
    }
    if (o.by) {
        text_by(r, *o.by, out);
    }
    if (o.details) {
        text_details(r, ids, out);
    }
    print_load_notes(load, out);
}

// --by in markdown: the same groups as text_by, as a table.
void
markdown_by(const AuditResult& r, const std::string& by, std::ostream& out)
{
    fmt::print(out, "| {} | requests | hit rate | actual USD | no-cache USD | saved USD |\n", by);
    fmt::print(out, "|---|---:|---:|---:|---:|---:|\n");
    const auto groups = r.by(by);
    for (const auto& [key, g] : groups) {
        fmt::print(out, "| {} | {} | {} | {} | {} | {} |\n", markdown_cell(key),
                   group_count(g.requests), reported_rate(g), markdown_cell(group_actual(g)),
                   group_money(g, g.no_cache.total()),
                   group_money(g, g.no_cache.total() - g.actual.total()));
    }
    fmt::print(out, "\n");
    if (const auto note = group_footnote(groups); !note.empty()) {
        fmt::print(out, "{}\n\n", markdown_cell(note));
    }
}

// What the figures rest on, as the text summary says it.
void
markdown_caveats(const AuditResult& r, const AuditPrintOptions& o, std::ostream& out)
{
    const auto caveat = account::estimated_caveat(o.basis);
    if (!caveat.empty()) {
        fmt::print(out, "- {}\n", caveat);
    }
    for (const auto& note : r.notes) {
        fmt::print(out, "- note: {}\n", markdown_cell(note));
    }
    if (!caveat.empty() || !r.notes.empty()) {
        fmt::print(out, "\n");
    }
}

void
markdown(const AuditResult& r, const ingest::LoadSummary&, const AuditPrintOptions& o,
         std::ostream& out)
{
    const Totals& t = r.totals;
    fmt::print(out, "### cachewise audit\n\n");
    const IdKey ids = ids_of(r);
    if (const auto note = ids.note(); !note.empty() && !r.findings.empty()) {
        fmt::print(out, "_Request {}._\n\n", note);
    }
    fmt::print(
        out,
        "| requests | hit rate (tokens) | requests with a read | new-or-expired / warm hit rate "
        "| net savings |\n");
    fmt::print(out, "|---:|---:|---:|---|---:|\n");
    fmt::print(out, "| {} | {} | {} of {} | {} / {} | {} |\n\n", group_count(t.requests),
               reported_rate(t), group_count(t.with_read), group_count(t.with_usage),
               reported_rate(r.new_or_expired), reported_rate(r.warm),
               t.priced > 0 ? usd(t.read_savings - t.write_premium) + " USD" : "unpriced");
    if (t.priced > 0) {
        cost_rows(r, out, true);
        fmt::print(out, "\n");
    }
    markdown_caveats(r, o, out);
    if (o.by) {
        markdown_by(r, *o.by, out);
    }
    if (!r.findings.empty()) {
        fmt::print(out, "| rule | request | finding |\n|---|---|---|\n");
        for (const auto& f : r.findings) {
            fmt::print(out, "| **{}** {} | `{}` | {}{} |\n", f.rule, f.name,
                       markdown_cell(std::string(ids.shorten(f.request))),
                       markdown_cell(ids.shorten_in(f.message)),
                       f.occurrences > 1 ? " [×" + group_count(f.occurrences) + "]" : "");
        }
    }
}

// A cell of log text, quoted; one that starts as a spreadsheet formula does
// ('=', '+', '-', '@', a tab or CR: OWASP "CSV injection") gets a leading
// apostrophe, which spreadsheets take as "text" and do not show.
std::string
csv_quote(const std::string& s)
{
    std::string q = "\"";
    if (!s.empty() && std::string_view("=+-@\t\r").find(s.front()) != std::string_view::npos) {
        q += '\'';
    }
    for (char c : s) {
        q += c == '"' ? std::string("\"\"") : std::string(1, c);
    }
    return q + "\"";
}

// --by in CSV: the groups are the table (one file holds one table), the
// hit rate a fraction and money empty where a group has no price.
void
csv_by(const AuditResult& r, const std::string& by, std::ostream& out)
{
    fmt::print(out,
               "{},requests,with_usage,hit_rate,actual_usd,no_cache_usd,saved_usd,"
               "reported_cost_usd\n",
               by);
    for (const auto& [key, g] : r.by(by)) {
        const bool priced = g.priced > 0;
        const auto money = [priced](double v) { return priced ? usd(v) : std::string(); };
        const auto rate = g.hit_rate();
        fmt::print(out, "{},{},{},{},{},{},{},{}\n", csv_quote(key), g.requests, g.with_usage,
                   rate ? fmt::format("{:.4f}", *rate) : std::string(), money(g.actual.total()),
                   money(g.no_cache.total()), money(g.no_cache.total() - g.actual.total()),
                   g.with_reported_cost > 0 ? usd(g.reported_cost) : std::string());
    }
}

void
csv(const AuditResult& r, const std::optional<std::string>& by, std::ostream& out)
{
    if (by) {
        csv_by(r, *by, out);
        return;
    }
    fmt::print(
        out,
        "id,stream,model,started_at,status,partner,prompt_tokens,reported_read,reported_write_5m,"
        "reported_write_1h,reported_fresh,output,expected_read,expected_write_5m,expected_write_1h,"
        "expected_fresh,actual_usd,no_cache_usd,expected_usd,ideal_usd,findings\n");
    const auto quote = csv_quote;
    for (const auto& a : r.requests) {
        std::string rules;
        for (const auto i : a.findings) {
            rules += (rules.empty() ? "" : " ") + r.findings[i].rule;
        }
        const auto n = [&](const std::optional<Split>& s, std::int64_t Split::*f) {
            return s ? std::to_string((*s).*f) : std::string();
        };
        const auto money = [&](const Money& m) {
            return a.priced ? usd(m.total()) : std::string();
        };
        fmt::print(out, "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n",
                   quote(a.id), quote(a.stream), quote(a.model),
                   a.started_at ? format_rfc3339(*a.started_at) : "", analysis::to_string(a.status),
                   quote(a.partner), a.prompt_tokens, n(a.reported, &Split::read),
                   n(a.reported, &Split::write_5m), n(a.reported, &Split::write_1h),
                   n(a.reported, &Split::fresh), n(a.reported, &Split::output), a.expected.read,
                   a.expected.write_5m, a.expected.write_1h, a.expected.fresh, money(a.actual),
                   money(a.no_cache), money(a.expected_cost), money(a.ideal), rules);
    }
}

// One row of the per-request list.
void
split_or_null(JsonWriter& w, const Split* s)
{
    if (s == nullptr) {
        w.null();
        return;
    }
    w.object()
        .member("read", s->read)
        .member("write_5m", s->write_5m)
        .member("write_1h", s->write_1h)
        .member("fresh", s->fresh)
        .member("output", s->output)
        .member("input", s->input())
        .end();
}

// One request's row, as split_json and the other shapes above lay it out.
void
request_row(const account::RequestAudit& a, JsonWriter& w)
{
    w.object().member("id", a.id).member("stream", a.stream).member("model", a.model);
    w.member("started_at",
             a.started_at ? std::optional(format_rfc3339(*a.started_at)) : std::nullopt);
    w.member("status", analysis::to_string(a.status))
        .member_or_null("partner", a.partner)
        .member("new_or_expired", a.new_or_expired)
        .member("prompt_tokens", a.prompt_tokens)
        .member("shared_tokens", a.shared_tokens)
        .member("rejected", a.rejected)
        .member("breakpoints_assumed", a.breakpoints_assumed)
        .key("reported");
    split_or_null(w, a.reported ? &*a.reported : nullptr);
    w.member("write_ttl_assumed", a.write_ttl_assumed).key("expected");
    split_or_null(w, a.simulated ? &a.expected : nullptr);
    w.member_or_null("policy", a.policy)
        .member("compared", a.compared)
        .member("lost_to_granularity", a.lost_to_granularity)
        .member("lost_to_eviction", a.lost_to_eviction)
        .key("notes")
        .array();
    for (const auto& note : a.notes) {
        w.value(note);
    }
    w.end().member("mismatch", a.mismatch).member("not_judged", a.not_judged).key("cost_usd");
    if (a.priced) {
        w.object()
            .member("actual", a.actual.total())
            .member("no_cache", a.no_cache.total())
            .member("expected", a.expected_cost.total())
            .member("ideal", a.ideal.total())
            .end();
    } else {
        w.null();
    }
    w.member("ttft_seconds", a.ttft_seconds).key("findings").array();
    for (const auto f : a.findings) {
        w.value(f);
    }
    w.end().end();
}

void
json(const AuditResult& r, const ingest::LoadSummary& load, const AuditPrintOptions& o,
     std::ostream& out)
{
    Json j = json_document("audit", json_schema_version("audit"));
    j["policy"] = or_null(r.policy);
    j["policies"] = r.policies;
    j["totals"] = totals_json(r.totals);
    j["new_or_expired"] = totals_json(r.new_or_expired);
    j["warm"] = totals_json(r.warm);
    const auto dist = [](const account::Distribution& d) {
        // No sample: null, not a median of 0.
        const auto value = [&d](double v) { return d.count > 0 ? Json(v) : Json(nullptr); };
        return Json{{"count", d.count}, {"p50", value(d.p50)}, {"p95", value(d.p95)}};
    };
    j["per_request_hit_ratio"] = dist(r.hit_ratio);
    j["ttft_seconds"] = {{"new_or_expired", dist(r.ttft_new_or_expired)},
                         {"warm", dist(r.ttft_warm)}};
    j["unpriced_models"] = r.unpriced_models;
    j["notes"] = r.notes;
    if (r.compute.enabled) {
        const auto& c = r.compute;
        j["compute"] = {{"model", c.model},
                        {"reference", c.reference},
                        {"gpu", c.gpu},
                        {"measured", c.measured},
                        {"saved_flops", c.saved_flops},
                        {"saved_gpu_seconds", c.saved_seconds},
                        {"unread_write_flops", c.unread_write_flops},
                        {"live_kv_bytes", c.live_kv_bytes}};
    }
    j["assumed_breakpoints"] = r.assumed_breakpoints;
    j["findings"] = json_array(r.findings, finding_to_json);
    j["requests"] = Json::array(); // streamed: see dump_with_rows
    if (o.by) {
        Json groups = Json::object();
        for (const auto& [key, g] : r.by(*o.by)) {
            groups[key] = totals_json(g);
        }
        j["by"] = {{"key", *o.by}, {"groups", groups}};
    }
    if (o.gate) {
        const auto& g = *o.gate;
        const auto rate = r.totals.hit_rate();
        j["gate"] = {{"baseline", g.baseline},
                     {"new_findings", g.new_findings},
                     {"hit_rate_before", g.hit_rate_before ? Json(*g.hit_rate_before) : Json()},
                     {"hit_rate_drop_points", g.hit_rate_before && rate
                                                  ? Json((*g.hit_rate_before - *rate) * 100.0)
                                                  : Json()},
                     {"max_regression", g.max_regression ? Json(*g.max_regression) : Json()},
                     {"regression_failed", g.regression_failed}};
    }
    add_load_json(j, load);
    dump_with_rows(
        j, r.requests.size(), [&](std::size_t i, JsonWriter& w) { request_row(r.requests[i], w); },
        out);
}

} // namespace

void
print_audit(const AuditResult& result, const ingest::LoadSummary& load,
            const AuditPrintOptions& options, std::ostream& out)
{
    print_in(options.format,
             {.text = [&] { text(result, load, options, out); },
              .json = [&] { json(result, load, options, out); },
              .markdown = [&] { markdown(result, load, options, out); },
              .csv = [&] { csv(result, options.by, out); },
              .html =
                  [&] {
                      print_html(html_from_audit(result, options.rules, HtmlLimits{},
                                                 options.placement, options.by),
                                 out);
                  }});
}

} // namespace cachewise::report
