#include "account/auditor.hpp"

#include "analysis/request_prefetch.hpp"
#include "analysis/rule_catalogue.hpp"
#include "prefill/flop_model.hpp"
#include "util/format.hpp"
#include "util/time.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

namespace cachewise::account {

using analysis::Finding;
using analysis::make_finding;
namespace rule = analysis::rule;
using model::Request;

void
Totals::add(const RequestAudit& r)
{
    ++requests;
    if (r.reported) {
        ++with_usage;
        with_read += r.reported->read > 0 ? 1 : 0;
        reported += *r.reported;
        expected += r.expected;
    } else {
        expected_without_usage += r.expected;
    }
    lost_to_granularity += r.lost_to_granularity;
    lost_to_eviction += r.lost_to_eviction;
    if (r.reported_cost_usd) {
        ++with_reported_cost;
        reported_cost += *r.reported_cost_usd;
    }
    if (r.priced && r.reported) {
        ++priced;
        write_premium += r.write_premium;
        read_savings += r.read_savings;
        actual += r.actual;
        no_cache += r.no_cache;
        expected_cost += r.expected_cost;
        ideal += r.ideal;
    }
}

std::map<std::string, Totals>
AuditResult::by(std::string_view key) const
{
    std::map<std::string, Totals> out;
    for (const auto& r : requests) {
        const std::string& k = key == "day" ? r.day : key == "stream" ? r.stream : r.model;
        out[k.empty() ? "(unknown)" : k].add(r);
    }
    return out;
}

namespace {

// Why the minimum a finding compares with is not certain, in parentheses
// (nothing when it is): a model the rules do not list gets the provider's
// default; a listed one may have a second-hand or disputed figure (OpenAI's
// guide said 1,024 tokens, a later copy 2,048), whose sources the rules give.
std::string
minimum_doubt(const model::Request& r, const sim::SimResult& s)
{
    return ruleset::minimum_doubt(s.minimum_known, s.minimum_listed, r.provider);
}

// The rule of a simulated miss: expiry, a request sent before its writer's
// entry was visible, or a write beyond the 20-position lookback.
std::string_view
miss_rule(sim::MissReason reason)
{
    switch (reason) {
    case sim::MissReason::expired:
        return rule::k_ttl_expired;
    case sim::MissReason::concurrent:
        return rule::k_concurrent;
    default:
        return rule::k_lookback_exceeded;
    }
}

Distribution
distribution(std::vector<double> values)
{
    Distribution d;
    d.count = values.size();
    if (values.empty()) {
        return d;
    }
    std::sort(values.begin(), values.end());
    const auto at = [&](double q) {
        const double pos = q * static_cast<double>(values.size() - 1);
        const auto lo = static_cast<std::size_t>(std::floor(pos));
        const auto hi = std::min(lo + 1, values.size() - 1);
        return values[lo] + (values[hi] - values[lo]) * (pos - static_cast<double>(lo));
    };
    d.p50 = at(0.5);
    d.p95 = at(0.95);
    return d;
}

// One simulator per cache policy: each request's provider, or the forced one.
class Simulators {
public:
    Simulators(const ruleset::Rules& rules, const AuditOptions& options)
        : m_rules(rules), m_options(options)
    {}

    [[nodiscard]] std::string policy_for(const Request& r) const
    {
        return m_options.policy.empty() ? r.provider : m_options.policy;
    }

    sim::SimResult simulate(const Request& r, std::size_t index)
    {
        const std::string policy = policy_for(r);
        auto& sim = m_by_policy[policy];
        if (!sim) {
            sim = sim::make_simulator(policy, m_rules, m_options.sim);
        }
        return sim->simulate(r, index);
    }

    // Calls `fn` on every simulator's writes (see CacheSimulator::writes),
    // without gathering them: one a request on a long log.
    template <typename Fn> void for_each_write(Fn fn)
    {
        for (const auto& [policy, sim] : m_by_policy) {
            for (const auto& w : sim->writes()) {
                fn(w);
            }
        }
    }

    [[nodiscard]] std::vector<std::string> policies() const
    {
        std::vector<std::string> out;
        for (const auto& [policy, sim] : m_by_policy) {
            out.push_back(policy);
        }
        return out;
    }

private:
    const ruleset::Rules& m_rules;
    const AuditOptions& m_options;
    std::map<std::string, std::unique_ptr<sim::CacheSimulator>> m_by_policy;
};

class Auditor {
public:
    Auditor(const ruleset::Rules& rules, const AuditOptions& options, AuditResult& result)
        : m_rules(rules), m_options(options), m_result(result), m_caches(rules, options)
    {}

    void run(const analysis::RequestStore& requests)
    {
        m_requests = &requests;
        Unpriced unpriced;
        // Exactly one row a request: a growing vector would hold up to three
        // times the rows while it moves them.
        m_result.requests.reserve(requests.size());
        // One request whole at a time (a few more with a second thread): the
        // store keeps the rest as paths.
        analysis::RequestPrefetch ahead(requests, m_options.threads);
        for (std::size_t i = 0; i < requests.size(); ++i) {
            const Request r = ahead.next();
            RequestAudit a = one(r, i);
            if (!a.priced && a.reported && !a.reported_cost_usd) {
                add_unpriced(unpriced, r);
            }
            m_result.requests.push_back(std::move(a));
        }
        m_result.unpriced_models = unpriced_labels(unpriced);
        m_result.policy = m_options.policy;
        m_result.policies = m_caches.policies();
        if (m_options.windowed) {
            m_result.notes.emplace_back(
                "only the requests in --since/--until are replayed: a read that requests "
                "before the window warmed counts as warmed elsewhere (CW025)");
        }
        m_result.untimed = 0;
        for (std::size_t i = 0; i < requests.size(); ++i) {
            m_result.untimed += requests.started_at(i) ? 0 : 1;
        }
        if (m_result.untimed == requests.size() && requests.size() > 0) {
            // Without times, expiry, concurrency and the TTL cannot be judged:
            // no CW020/CW021/CW023/CW024 and no advice that drops breakpoints.
            m_result.notes.emplace_back(
                "timing not judged: the log has no timestamps, so requests were replayed in log "
                "order, each visible to the next, and no entry expired (no TTL, concurrency or "
                "write-without-read advice)");
        } else {
            if (m_result.assumed_breakpoints > 0) {
                m_result.notes.emplace_back(
                    "Claude Code places cache_control and chooses the TTL itself: no "
                    "write-without-read (CW023) or TTL (CW024) advice on its placement");
            }
            if (m_result.untimed > 0) {
                m_result.notes.push_back(fmt::format(
                    "timing judged only between requests with logged times: {} of {} have none",
                    group_count(m_result.untimed), group_count(requests.size())));
            }
            advise_writes();
            advise_ttl();
        }
        note_assumptions();
        summarise();
        compute();
    }

    // What the audit did not judge, or took on assumption, and why: a note
    // each.
    void note_assumptions()
    {
        if (m_untimed_short > 0) {
            m_result.notes.push_back(fmt::format(
                "{} read less than an entry the replay in log order kept alive: without logged "
                "times the entry may have expired (TTL) as well as been evicted or routed "
                "elsewhere; not judged a miss (--details marks {})",
                count_noun(m_untimed_short, "request"), m_untimed_short == 1 ? "it" : "them"));
        }
        if (m_within_estimate > 0) {
            m_result.notes.push_back(fmt::format(
                "{} read less than the cached prefix the simulation hit, but within the ±{:.0f}% "
                "error band of that prefix's estimated length: not judged a miss (the estimate, "
                "not the cache, may be what is off; --details marks them)",
                count_noun(m_within_estimate, "request"), m_rules.tokens.error_band_percent.value));
        }
        if (m_render_order > 0) {
            m_result.notes.push_back(fmt::format(
                "{} read less than the prefix before a changed tool definition: the render order "
                "of rules/providers/{}.json (tools after the system prompt) is assumed, and the "
                "provider's usage suggests it renders the tools first, so the change spoils the "
                "prompt from the start; not judged a miss (--details marks {})",
                count_noun(m_render_order, "request"), m_render_order_provider,
                m_render_order == 1 ? "it" : "them"));
        }
        if (m_writer_read > 0) {
            m_result.notes.push_back(fmt::format(
                "{} read less than the entry the simulation hit, but no less (within {} "
                "tokens) than the log shows cached for it: what its writer read, or, where the "
                "writer read nothing, what its own writers read within the TTL. {} stores an "
                "implicit entry when it chooses and reports no writes (rules/providers/{}.json "
                "writer_read_slack_tokens), so nothing the log shows cached was lost, and that "
                "the writer's own prompt was cached is only the simulation's assumption; not "
                "judged a miss (--details marks {})",
                count_noun(m_writer_read, "request"),
                m_rules.provider(m_writer_read_provider).integer("writer_read_slack_tokens"),
                m_writer_read_provider, m_writer_read_provider,
                m_writer_read == 1 ? "it" : "them"));
        }
        if (m_over_estimate > 0) {
            m_result.notes.push_back(fmt::format(
                "{} read more than the simulation's units allow, but no more than the prefix "
                "shared with a live partner within the ±{:.0f}% error band of its estimated "
                "length: not judged (the units fall where the estimate puts them; --details marks "
                "them)",
                count_noun(m_over_estimate, "request"), m_rules.tokens.error_band_percent.value));
        }
        if (!m_second_hand.empty()) {
            const auto [models, requests_count] = by_model(m_second_hand);
            m_result.notes.push_back(fmt::format(
                "the {} of {} {} from second-hand sources (rules/pricing.json confidence): {}; "
                "{} estimated",
                requests_count == 1 ? "price" : "prices", count_noun(requests_count, "request"),
                requests_count == 1 ? "comes" : "come", models,
                requests_count == 1 ? "its cost is" : "their costs are"));
        }
        note_logged_costs();
        note_untimed_prices();
        if (m_thirty_minute_writes > 0) {
            m_result.notes.push_back(fmt::format(
                "{} of OpenAI models that cache at breakpoints (GPT-5.6 and later) wrote "
                "30-minute entries, their only TTL (rules/providers/openai.json ttl_seconds.30m): "
                "the \"write 5m\" figures count those writes",
                count_noun(m_thirty_minute_writes, "request")));
        }
    }

    // OpenAI's breakpoint models write entries that live 30 minutes; the
    // splits have a short-TTL and a 1h column only, so a note says where
    // their writes are counted (rule: OpenAI ttl_seconds.30m).
    void count_thirty_minute_writes(const Request& r, const RequestAudit& a)
    {
        // The reported writes are OpenAI's own; the simulated ones are
        // 30-minute entries only when OpenAI's cache was the one simulated.
        const bool wrote = (a.policy == "openai" && a.expected.write_5m > 0) ||
                           (a.reported && a.reported->write_5m > 0);
        if (wrote && r.provider == "openai" &&
            m_rules.provider("openai").uses_breakpoints(r.billed_model())) {
            ++m_thirty_minute_writes;
        }
    }

    // "model-a (3), model-b (1)" and the requests counted, for a note.
    static std::pair<std::string, std::size_t>
    by_model(const std::map<std::string, std::size_t>& counts)
    {
        std::vector<std::string> models;
        std::size_t total = 0;
        for (const auto& [model, n] : counts) {
            models.push_back(fmt::format("{} ({})", model, group_count(n)));
            total += n;
        }
        return {fmt::format("{}", fmt::join(models, ", ")), total};
    }

    void note_untimed_prices()
    {
        if (m_untimed_priced.empty()) {
            return;
        }
        const auto [models, n] = by_model(m_untimed_priced);
        m_result.notes.push_back(fmt::format(
            "{} without a start time {} priced at the latest off-peak prices of "
            "rules/pricing.json, whose prices changed on a date or are higher in peak hours: "
            "{}; {} assumed",
            count_noun(n, "request"), n == 1 ? "is" : "are", models,
            n == 1 ? "its cost is" : "their costs are"));
    }

private:
    // Unpriced models, and for each the days its requests fell on before
    // its first price (keyed by that price's start); no days: no price at all.
    using Unpriced = std::map<std::pair<std::string, std::string>, std::set<std::string>>;

    void add_unpriced(Unpriced& unpriced, const Request& r) const
    {
        const std::string& billed = r.billed_model();
        if (billed.empty()) {
            unpriced[{"(unknown model)", ""}];
            return;
        }
        const std::string date = r.started_at ? format_rfc3339(*r.started_at).substr(0, 10) : "";
        if (const auto start = m_rules.pricing.starts_after(billed, date)) {
            unpriced[{billed, *start}].insert(date);
        } else {
            unpriced[{billed, ""}];
        }
    }

    // "model", or "model (no price effective on DATE[ and DATE]: prices start
    // DATE)", once a model and start, however many days its requests span.
    [[nodiscard]] static std::vector<std::string> unpriced_labels(const Unpriced& unpriced)
    {
        std::vector<std::string> labels;
        for (const auto& [key, days] : unpriced) {
            const auto& [model, start] = key;
            if (days.empty()) {
                labels.push_back(model);
            } else if (days.size() <= 2) {
                labels.push_back(fmt::format("{} (no price effective on {}: prices start {})",
                                             model, fmt::join(days, " and "), start));
            } else {
                labels.push_back(
                    fmt::format("{} (no price effective on {} days from {} to {}: prices start {})",
                                model, days.size(), *days.begin(), *days.rbegin(), start));
            }
        }
        return labels;
    }

    void add(Finding f, std::size_t index)
    {
        m_first_of.try_emplace(fold_key(f), m_result.findings.size());
        m_result.findings.push_back(std::move(f));
        attach(m_result.findings.size() - 1, index);
    }

    // Lists finding `k` on request `index`'s row (SIZE_MAX: the request
    // being audited, whose row is not made yet).
    void attach(std::size_t k, std::size_t index)
    {
        if (index < m_result.requests.size()) {
            m_result.requests[index].findings.push_back(k);
        } else {
            m_pending.push_back(k);
        }
    }

    // What add_folded() folds on: the rule, stream, place and kind.
    using FoldKey = std::tuple<std::string, std::string, std::string, std::string>;
    static FoldKey fold_key(const Finding& f)
    {
        return {f.rule, f.stream, f.location.path, f.kind};
    }

    // Folds a finding into the first earlier one of the same rule, stream and
    // place; the request's row still lists it. Looked up in m_first_of: a
    // scan of every finding made the audit quadratic in the log's length.
    void add_folded(Finding f, std::size_t index)
    {
        if (const auto it = m_first_of.find(fold_key(f)); it != m_first_of.end()) {
            auto& g = m_result.findings[it->second];
            ++g.occurrences;
            g.tokens_lost += f.tokens_lost;
            if (f.cost_usd) {
                g.cost_usd = g.cost_usd.value_or(0) + *f.cost_usd;
            }
            attach(it->second, index);
            return;
        }
        add(std::move(f), index);
    }

    // The request's costs side by side, at its model's prices on its date.
    void price(const Request& r, std::size_t index, std::int64_t output, RequestAudit& a)
    {
        const auto prices =
            prices_for(m_rules.pricing, r.billed_model(), r.started_at, a.prompt_tokens);
        if (prices && a.reported) {
            a.priced = true;
            count_price_assumptions(r);
            a.actual = cost_of(*a.reported, *prices);
            Split none;
            none.fresh = a.reported->input();
            none.output = output;
            a.no_cache = cost_of(none, *prices);
            a.expected_cost = cost_of(a.expected, *prices);
            // Every token shared with a live partner read, and at least what
            // the provider did read: one warmed outside the log reads more
            // than the log explains, and a lower bound is never above what
            // was paid.
            Split ideal;
            ideal.read = std::min(std::max(a.shared_tokens, a.reported->read), a.reported->input());
            ideal.fresh = a.reported->input() - ideal.read;
            ideal.output = output;
            a.ideal = cost_of(ideal, *prices);
            if (a.ideal.total() > a.actual.total()) {
                a.ideal = a.actual; // a --prices file that reads dearer than it inputs
            }
            m_prices[index] = *prices;
            const auto& u = *a.reported;
            a.write_premium =
                (static_cast<double>(u.write_5m) * (prices->write_5m - prices->input) +
                 static_cast<double>(u.write_1h) * (prices->write_1h - prices->input)) /
                1e6;
            a.read_savings = static_cast<double>(u.read) * (prices->input - prices->read) / 1e6;
            if (r.usage && r.usage->cost_usd) {
                // The log's own cost of a call priced here: a check of the prices.
                ++m_logged_costs.requests;
                m_logged_costs.logged += *r.usage->cost_usd;
                m_logged_costs.computed += a.actual.total();
            }
        } else if (a.reported && r.usage && r.usage->cost_usd) {
            a.reported_cost_usd = r.usage->cost_usd;
        }
    }

    RequestAudit one(const Request& r, std::size_t index)
    {
        const auto& outcome = m_result.analysis.outcomes[index];
        RequestAudit a;
        a.id = r.id;
        a.stream = r.stream;
        a.model = r.model;
        a.started_at = r.started_at;
        a.day = r.started_at ? format_rfc3339(*r.started_at).substr(0, 10) : "";
        a.status = outcome.status;
        a.partner = outcome.partner;
        a.prompt_tokens = r.prompt_tokens();
        a.shared_tokens = outcome.shared_tokens;
        if (r.started_at && r.first_token_at) {
            a.ttft_seconds = seconds_between(*r.started_at, *r.first_token_at);
        }
        m_pending.clear();
        if (outcome.finding) {
            // The break analyze found explains the miss (CW001-CW005, CW010).
            add(m_result.analysis.findings[*outcome.finding], SIZE_MAX);
        }
        for (auto& f : check_usage(r)) {
            add(std::move(f), SIZE_MAX);
        }
        if (r.usage) {
            if (const auto rep = reported_split(*r.usage)) {
                a.reported = rep->split;
                a.write_ttl_assumed = rep->write_ttl_assumed;
            }
        }
        const std::int64_t output = a.reported ? a.reported->output : 0;

        if (r.prompt_logged && !r.segments.empty()) {
            a.simulated = true;
            a.policy = m_caches.policy_for(r);
            const sim::SimResult s = m_caches.simulate(r, index);
            a.compared = a.policy == r.provider;
            a.lost_to_granularity = s.lost_to_granularity;
            a.lost_to_eviction = s.lost_to_eviction;
            a.notes = s.notes;
            a.rejected = s.rejected;
            a.breakpoints_assumed = s.breakpoints_assumed;
            m_result.assumed_breakpoints += s.breakpoints_assumed ? 1 : 0;
            a.expected = Split{s.read, s.write_5m, s.write_1h, s.fresh, output};
            if (auto route = other_route(r, outcome)) {
                a.notes.push_back(std::move(*route));
            }
            m_shown_now =
                unreported_writes(s, a) ? std::optional(shown_for(r, s, a)) : std::nullopt;
            findings_of_simulation(r, s, outcome, a);
            if (m_shown_now) {
                remember_shown(r, index, a);
            }
        } else if (a.reported) {
            a.expected = *a.reported; // nothing to simulate: take the report as it is
        }
        count_thirty_minute_writes(r, a);
        a.new_or_expired = outcome.status == analysis::RequestOutcome::Status::cold ||
                           outcome.status == analysis::RequestOutcome::Status::branched ||
                           m_expired_now;

        price(r, index, output, a);
        for (const auto f : m_pending) {
            a.findings.push_back(f);
        }
        m_pending.clear();
        return a;
    }

    // CW012: a breakpoint (or, for an automatic cache, the prompt) below the
    // model's minimum cacheable length.
    void below_minimum(const Request& r, const sim::SimResult& s)
    {
        for (const auto segment : s.below_minimum) {
            Finding f = make_finding(rule::k_below_minimum, r);
            f.location.path = r.segments[segment].path.str();
            f.location.token = r.segments[segment].cumulative_tokens;
            f.kind = s.minimum_known    ? ""
                     : s.minimum_listed ? "minimum-uncertain"
                                        : "minimum-assumed";
            // An automatic cache was not asked to cache anything: a short
            // prompt is a fact to know, not a mistake to fix.
            if (!s.uses_breakpoints) {
                f.severity = analysis::Severity::info;
            }
            // The whole prompt's length is the reported one, not an estimate.
            const bool reported = segment + 1 == r.segments.size() && r.usage &&
                                  r.usage->total_input() == r.segments[segment].cumulative_tokens;
            const std::string tokens =
                (reported ? "" : "about ") + group_digits(r.segments[segment].cumulative_tokens);
            const std::string assumed = minimum_doubt(r, s);
            f.message =
                s.uses_breakpoints
                    ? fmt::format("the breakpoint at {} caches a prefix of {} tokens, below "
                                  "the {} minimum of {}{}: nothing is written",
                                  f.location.path, tokens, r.model, group_digits(s.minimum_tokens),
                                  assumed)
                    : fmt::format("the prompt of {} tokens is below the {} minimum of {}{} "
                                  "for automatic caching: {}",
                                  tokens, r.model, group_digits(s.minimum_tokens), assumed,
                                  s.minimum_known ? "nothing is cached"
                                                  : "probably nothing is cached");
            add_folded(std::move(f), SIZE_MAX);
        }
    }

    void findings_of_simulation(const Request& r, const sim::SimResult& s,
                                const analysis::RequestOutcome& outcome, RequestAudit& a)
    {
        m_expired_now = false;
        if (s.rejected) {
            Finding f = make_finding(s.reject_rule, r);
            f.location.path = "cache_control";
            f.message =
                fmt::format("{}: the API answers 400 and nothing is cached", s.reject_reason);
            add(std::move(f), SIZE_MAX);
            return;
        }
        below_minimum(r, s);
        if (s.uses_breakpoints && s.breakpoints.empty() && !s.breakpoints_assumed &&
            a.shared_tokens >= s.minimum_tokens && breakpoint_would_pay(r, outcome, a)) {
            Finding f = make_finding(rule::k_no_breakpoint, r);
            f.location.path = "cache_control";
            f.tokens_lost = a.shared_tokens;
            f.message = fmt::format(
                "{} tokens are shared with an earlier request but no breakpoint caches them",
                group_digits(a.shared_tokens));
            add_folded(std::move(f), SIZE_MAX);
        }
        if (s.missed) {
            const auto& m = *s.missed;
            Finding f = make_finding(miss_rule(m.reason), r);
            f.partner = m_requests->id(m.writer);
            f.location.path = r.segments[m.segment].path.str();
            f.location.token = m.tokens;
            f.tokens_lost = m.tokens - s.read;
            // Timing is judged only between requests with logged times.
            const bool timed = r.started_at && m_requests->started_at(m.writer).has_value();
            const bool timing =
                m.reason == sim::MissReason::expired || m.reason == sim::MissReason::concurrent;
            if (f.tokens_lost <= 0 || provider_read(a, m.tokens) || (timing && !timed)) {
                // Read anyway: another entry covered it, or the provider's own
                // usage shows it kept the entry (compare() says so, as CW031).
                return compare(r, s, outcome, a);
            }
            if (m.reason == sim::MissReason::expired) {
                m_expired_now = true;
                // An error answer (a named cache gone: Gemini's 403) processed
                // and billed nothing: the expiry cost the call, not tokens.
                const auto error = model::response_error(r);
                if (!error.empty() && !r.usage) {
                    f.tokens_lost = 0;
                }
                f.message = fmt::format(
                    "the entry at {} was last used {:.0f} s before, beyond its {:.0f} s TTL: {}",
                    f.location.path, m.gap_seconds, m.ttl_seconds,
                    f.tokens_lost == 0
                        ? fmt::format("the provider answered with an error ({})", error)
                        : fmt::format("{} tokens {}", group_digits(f.tokens_lost),
                                      s.uses_breakpoints ? "written again" : "processed again"));
            } else if (m.reason == sim::MissReason::concurrent) {
                f.message = fmt::format(
                    "started before the response of {} began, so its entry at {} was not "
                    "visible yet",
                    f.partner, f.location.path);
            } else if (m.reason == sim::MissReason::lookback) {
                f.message = fmt::format(
                    "the entry at {} is {} before the nearest breakpoint; the "
                    "lookback window is {}",
                    f.location.path,
                    count_noun(static_cast<std::uint64_t>(m.positions_back), "position"),
                    group_digits(m_rules.provider(a.policy).integer("lookback_positions")));
            } else {
                return compare(r, s, outcome, a); // eviction: reported in the totals
            }
            add(std::move(f), SIZE_MAX);
        }
        compare(r, s, outcome, a);
    }

    // CW011's advice pays only if the entry a breakpoint writes is alive when
    // the partner's prefix comes again: within the shortest TTL a write and a
    // read cost 1.25 + 0.1 of the input price against 2 without caching.
    // Later the 5m entry has expired, and a 1h one costs 2 + 0.1 for one
    // reuse (rules "pricing multipliers"). Untimed requests are not judged.
    [[nodiscard]] bool breakpoint_would_pay(const Request& r,
                                            const analysis::RequestOutcome& outcome,
                                            const RequestAudit& a) const
    {
        if (!outcome.partner_index || !r.started_at) {
            return true;
        }
        const auto& partner = m_requests->started_at(*outcome.partner_index);
        const auto& provider = m_rules.provider(a.policy);
        return !partner || !provider.has("ttl_seconds.5m") ||
               seconds_between(*partner, *r.started_at) <= provider.ttl_seconds("5m");
    }

    // The reported usage read at least `tokens` (within the tolerance): the
    // provider kept that entry, whatever the simulation says.
    [[nodiscard]] bool provider_read(const RequestAudit& a, std::int64_t tokens) const
    {
        return a.reported && a.compared && a.reported->read + tolerance(a) >= tokens;
    }

    [[nodiscard]] std::int64_t tolerance(const RequestAudit& a) const
    {
        const auto& provider = m_rules.provider(a.policy);
        const double fraction = provider.has("tolerance_fraction")
                                    ? provider.fact("tolerance_fraction").value
                                    : m_options.tolerance_fraction;
        const std::int64_t tokens = provider.has("tolerance_tokens")
                                        ? provider.integer("tolerance_tokens")
                                        : m_options.tolerance_tokens;
        const std::int64_t input = a.reported ? a.reported->input() : 0;
        return std::max<std::int64_t>(tokens, std::llround(fraction * static_cast<double>(input)));
    }

    // Less was read than the entry the simulation hit, but no less than that
    // entry's position minus the estimator's error band, where the position
    // is estimated: not counted exactly, and neither the request's own end
    // nor the writer's whole prompt (whose reported totals pin them). Such a
    // read says where the breakpoint really sits, not that the entry was
    // evicted, so it is not called a miss (CW022).
    [[nodiscard]] bool read_within_estimate(const Request& r, const sim::SimResult& s,
                                            const RequestAudit& a) const
    {
        if (!s.hit_segment || !s.hit_writer || *s.hit_segment + 1 >= r.segments.size()) {
            return false;
        }
        const std::size_t hit = *s.hit_segment;
        const auto counted = [](const model::Segment& x) {
            return x.token_source == model::TokenSource::exact;
        };
        if (std::all_of(r.segments.begin(),
                        r.segments.begin() + static_cast<std::ptrdiff_t>(hit) + 1, counted)) {
            return false;
        }
        const std::int64_t position = r.segments[hit].cumulative_tokens;
        const auto& writer = m_requests->usage(*s.hit_writer);
        if (writer && writer->total_input() == position) {
            return false;
        }
        const double band = m_rules.tokens.error_band();
        return static_cast<double>(a.reported->read) >= static_cast<double>(position) * (1 - band);
    }

    // A cache that stores entries unreported (rule fact
    // writer_read_slack_tokens: Gemini's implicit caching) stores one when it
    // chooses, so that the writer of the entry the simulation hit had its own
    // prompt stored is the simulation's assumption. What the log shows is the
    // reads: the writer's own, or, for a writer that read nothing, what was
    // shown for its prefix in turn, while within the cache's TTL.
    struct Shown {
        std::int64_t read = 0;          // tokens a reported read shows cached
        std::optional<std::int64_t> at; // when that read started (micros), if logged
        std::size_t by = SIZE_MAX;      // the request that read them
    };

    [[nodiscard]] bool unreported_writes(const sim::SimResult& s, const RequestAudit& a) const
    {
        return !s.uses_breakpoints && m_rules.provider(a.policy).has("writer_read_slack_tokens");
    }

    [[nodiscard]] Shown shown_for(const Request& r, const sim::SimResult& s,
                                  const RequestAudit& a) const
    {
        if (!s.hit_writer || *s.hit_writer >= m_shown.size()) {
            return {};
        }
        const Shown& shown = m_shown[*s.hit_writer];
        const auto& provider = m_rules.provider(a.policy);
        if (shown.at && r.started_at && provider.has("ttl_seconds.implicit") &&
            static_cast<double>(r.started_at->micros - *shown.at) >
                provider.ttl_seconds("implicit") * 1e6) {
            return {};
        }
        return shown;
    }

    // After request `index` is judged: what later requests that hit its
    // entry may count as shown.
    void remember_shown(const Request& r, std::size_t index, const RequestAudit& a)
    {
        if (m_shown.size() <= index) {
            m_shown.resize(m_requests->size());
        }
        if (a.reported && a.reported->read > 0) {
            m_shown[index] =
                Shown{a.reported->read,
                      r.started_at ? std::optional(r.started_at->micros) : std::nullopt, index};
        } else {
            m_shown[index] = *m_shown_now;
        }
    }

    // More was read than the simulation's units allow, but no more than the
    // prefix shared with a live partner once its estimated length is allowed
    // the estimator's error band: where the units fall (Gemini's chunks, a
    // 128-token step) is only as precise as that estimate, so the difference
    // is not judged (the mirror of read_within_estimate).
    [[nodiscard]] bool read_over_within_estimate(const Request& r, const RequestAudit& a) const
    {
        // Only caches that read in fixed steps of the prompt: elsewhere (DeepSeek's
        // persisted units) the simulation's shortfall is not one of rounding.
        if (!m_rules.provider(a.policy).has("hit_step_tokens") ||
            std::all_of(r.segments.begin(), r.segments.end(), [](const model::Segment& x) {
                return x.token_source == model::TokenSource::exact;
            })) {
            return false;
        }
        const double band = m_rules.tokens.error_band();
        return static_cast<double>(a.reported->read) <=
               static_cast<double>(a.shared_tokens) * (1 + band);
    }

    // What was replayed: the log, or only the --since/--until window of it.
    [[nodiscard]] const char* replayed() const { return m_options.windowed ? "window" : "log"; }

    // A read longer than the prefix this request shares with any earlier one
    // in the log, past the estimate's error band: written by traffic the log
    // does not hold, however close to the expected read a comparison
    // tolerance of one step (Gemini's 2,048 tokens) puts it.
    [[nodiscard]] bool read_beyond_shared_prefix(const RequestAudit& a) const
    {
        const double band = m_rules.tokens.error_band();
        return a.reported && a.reported->read > a.expected.read &&
               static_cast<double>(a.reported->read) >
                   static_cast<double>(a.shared_tokens) * (1 + band);
    }

    // The first server-tool block (server_tool_use or its result) of an
    // assistant turn that a read past the prefix shared with an earlier
    // request reaches into, or null. Those blocks are what the provider
    // generated during that earlier request's own server-side tool loop
    // (code execution, web search): their ids are unique to it, so no other
    // traffic could have cached them.
    [[nodiscard]] static const model::Segment* server_tool_block_read(const Request& r,
                                                                      const RequestAudit& a)
    {
        if (a.shared_tokens == 0 || !a.reported) {
            return nullptr; // no earlier request of the conversation in the log
        }
        for (const auto& s : r.segments) {
            const std::int64_t start = s.cumulative_tokens - s.tokens;
            if (start >= a.reported->read) {
                break;
            }
            if (s.cumulative_tokens > a.shared_tokens && s.role == model::Role::assistant &&
                (s.kind == model::SegmentKind::server_tool_use ||
                 s.kind == model::SegmentKind::server_tool_result)) {
                return &s;
            }
        }
        return nullptr;
    }

    // More was read than the simulation allows: warmed by traffic the log does
    // not hold (CW025), an entry the documented rules had dropped, or reads
    // the rules cannot explain. Fills `f` and returns true, or returns false
    // when the extra read is within the estimate (not judged).
    [[nodiscard]] bool explain_extra_read(const Request& r, const sim::SimResult& s,
                                          const analysis::RequestOutcome& outcome,
                                          const RequestAudit& a, const std::string& numbers,
                                          std::int64_t tolerance, Finding& f) const
    {
        const auto& rep = *a.reported;
        // The simulation may reach past the analysis partner (DeepSeek's
        // end-of-output units): warmed elsewhere only beyond both.
        // With explicit breakpoints an entry is something a request wrote:
        // a read longer than any entry of this prefix in the log was written
        // by traffic the log does not hold.
        const bool no_entry_that_long =
            s.uses_breakpoints && (!s.missed || s.missed->tokens + tolerance < rep.read);
        if (rep.read > std::max(a.shared_tokens, a.expected.read) + tolerance ||
            read_beyond_shared_prefix(a)) {
            if (const auto* block = server_tool_block_read(r, a)) {
                // Not CW025: no traffic outside the log held these bytes.
                f.kind = "reads";
                f.message = fmt::format(
                    "{}: the read goes into {} ({}), a block an earlier response of this "
                    "conversation generated with a server tool: the provider seems to have "
                    "cached it during that call's own tool iterations, which the documented "
                    "rules and that call's reported usage do not show (estimated)",
                    numbers, block->path.str(), model::to_string(block->kind));
                return true;
            }
            f.kind = rule::k_warmed_elsewhere;
            f.message =
                fmt::format("{}: no earlier request in the {} shares more than {} tokens (CW025 "
                            "warmed-elsewhere)",
                            numbers, replayed(), group_digits(a.shared_tokens));
        } else if (no_entry_that_long) {
            f.kind = rule::k_warmed_elsewhere;
            f.message = fmt::format(
                "{}: no request in the {} cached a prefix of {} tokens on this prompt (CW025 "
                "warmed-elsewhere)",
                numbers, replayed(), group_digits(rep.read));
        } else if (s.missed && std::abs(rep.read - s.missed->tokens) <= tolerance) {
            f.kind = std::string(miss_rule(s.missed->reason));
            f.message = fmt::format(
                "{}: the provider kept the entry at {} and read it, although the documented "
                "rules rule it out ({}{})",
                numbers, r.segments[s.missed->segment].path.str(), sim::to_string(s.missed->reason),
                s.missed->reason == sim::MissReason::expired
                    ? fmt::format(": last used {:.0f} s before, TTL {:.0f} s",
                                  s.missed->gap_seconds, s.missed->ttl_seconds)
                    : "");
        } else if (read_from_other_upstream(r, s, outcome, a, tolerance)) {
            // Within the prefix shared with a partner on another upstream,
            // beyond what this upstream's entries hold: the evidence goes
            // against the assumption that each upstream has its own cache.
            f.kind = "reads";
            f.partner = m_requests->id(*outcome.partner_index);
            f.message = fmt::format(
                "{}: more than the {} tokens {}'s own entries hold, but no more than the {} "
                "shared with {}, sent to {}: the simulation gives each upstream its own cache, "
                "and here the two seem to share one (estimated)",
                numbers, group_digits(s.read + s.lost_to_granularity), r.route,
                group_digits(a.shared_tokens), f.partner,
                m_requests->route(*outcome.partner_index));
        } else if (read_over_within_estimate(r, a)) {
            return false;
        } else {
            f.kind = "reads";
            f.message = fmt::format("{}: more was read than the documented rules allow", numbers);
        }
        return true;
    }

    // More was read than the longest prefix this request's own upstream
    // cached, past the estimate's error band, but no more than it shares
    // with its partner on another upstream (other_route).
    [[nodiscard]] bool read_from_other_upstream(const Request& r, const sim::SimResult& s,
                                                const analysis::RequestOutcome& outcome,
                                                const RequestAudit& a, std::int64_t tolerance) const
    {
        if (!other_route(r, outcome)) {
            return false;
        }
        const double band = m_rules.tokens.error_band();
        const std::int64_t own_upstream = s.read + s.lost_to_granularity;
        const std::int64_t read = a.reported->read;
        return read <= a.shared_tokens + tolerance &&
               static_cast<double>(read) > static_cast<double>(own_upstream) * (1 + band);
    }

    // A gateway that sent a request to another upstream than its partner's
    // (OpenRouter "provider"): each upstream has its own cache, so only what
    // this one cached is expected to be read. Said (in the notes and in a
    // miss's message), since the analysis sees the request share a prefix
    // with its partner.
    [[nodiscard]] std::optional<std::string>
    other_route(const Request& r, const analysis::RequestOutcome& outcome) const
    {
        if (!outcome.partner_index || r.route.empty()) {
            return std::nullopt;
        }
        const std::string before = m_requests->route(*outcome.partner_index);
        if (before.empty() || before == r.route) {
            return std::nullopt;
        }
        return fmt::format("routed to {}, its partner to {}: each upstream has its own cache, "
                           "so only what {} cached is expected",
                           r.route, before, r.route);
    }

    // A price taken from a second-hand source (rules/pricing.json
    // "confidence"): the costs of such requests are said to rest on it. A
    // request without a start time whose price depends on the time (a price
    // that changed on a date, DeepSeek's peak hours) is priced at the latest
    // off-peak prices: an assumption, said in a note.
    void count_price_assumptions(const Request& r)
    {
        const std::string day = r.started_at ? format_rfc3339(*r.started_at).substr(0, 10) : "";
        const auto* period = m_rules.pricing.find(r.billed_model(), day);
        if (period == nullptr) {
            return;
        }
        if (!period->provenance.certain) {
            ++m_second_hand[r.billed_model()];
        }
        if (!r.started_at && (period->effective_from || !period->peak_minutes_utc.empty())) {
            ++m_untimed_priced[r.billed_model()];
        }
    }

    // Priced requests whose log gives their cost (OpenRouter's usage.cost):
    // whether the prices used agree with it, so that an estimated price the
    // log confirms is not left in doubt, nor one it contradicts unsaid.
    void note_logged_costs()
    {
        const auto& c = m_logged_costs;
        if (c.requests == 0) {
            return;
        }
        const double apart =
            c.logged > 0 ? std::abs(c.computed - c.logged) / c.logged : (c.computed > 0 ? 1 : 0);
        m_result.notes.push_back(fmt::format(
            "{} {} {} own cost: {:.6f} USD in all, against {:.6f} USD at the prices used ({})",
            count_noun(c.requests, "priced request"), c.requests == 1 ? "logs" : "log",
            c.requests == 1 ? "its" : "their", c.logged, c.computed,
            apart <= 0.005
                ? "they agree within 0.5%"
                : fmt::format("{:.1f}% apart: the log's figures may hold fees or "
                              "discounts these prices do not, or miss {}",
                              100 * apart,
                              c.logged > c.computed ? "a discount or time-of-day price they model"
                                                    : "a surcharge they model")));
    }

    // A difference the estimated token positions account for: no CW031, and
    // the request says why; `count` is the note's tally.
    static void not_judged(RequestAudit& a, std::size_t& count, const char* why)
    {
        a.mismatch = false;
        a.not_judged = true;
        a.notes.emplace_back(why);
        ++count;
    }

    // Expected against reported (CW031), with the cause attributed.
    // The change the analysis found in a tool definition, when the provider's
    // render order (tools after the system prompt) is only assumed: a read
    // short of the system prompt is then explained if the provider renders
    // the tools first, so it is not judged a miss.
    [[nodiscard]] bool change_in_assumed_order(const Request& r,
                                               const analysis::RequestOutcome& outcome) const
    {
        if (!outcome.finding || m_rules.provider(r.provider).render_order_provenance.certain) {
            return false;
        }
        const std::string& path = m_result.analysis.findings[*outcome.finding].location.path;
        return std::any_of(r.segments.begin(), r.segments.end(), [&](const model::Segment& seg) {
            return seg.path.level == model::Level::tools && seg.path.str() == path;
        });
    }

    // Why a read short of the simulation is not judged where the provider
    // reports no writes: the expected read rests on a stored prompt the log
    // cannot show, so the note gives both figures, lest "not judged" beside
    // an expected read of thousands look like a contradiction.
    [[nodiscard]] std::string writer_read_note(const sim::SimResult& s, const RequestAudit& a) const
    {
        const std::string writer = s.hit_writer ? m_requests->id(*s.hit_writer) : "its writer";
        const std::string shown =
            m_shown_now->read == 0
                ? std::string("no token of the entry the simulation hit as cached (the requests "
                              "that wrote it read none)")
                : fmt::format("{} tokens of the entry the simulation hit as cached ({} read them)",
                              group_digits(m_shown_now->read), m_requests->id(m_shown_now->by));
        return fmt::format("read {}, and the log shows {}: the "
                           "expected {} assume that {}'s prompt was stored, which the provider "
                           "does not report: not judged a miss",
                           group_digits(a.reported->read), shown, group_digits(a.expected.read),
                           writer);
    }

    // A read short of the simulation beyond the tolerance that the estimate,
    // the log's evidence or the assumed render order accounts for: not judged
    // (a note on the request, a tally for the audit's notes).
    bool short_read_not_judged(const Request& r, const sim::SimResult& s,
                               const analysis::RequestOutcome& outcome, RequestAudit& a)
    {
        // Replayed without times, every entry stays alive: a shorter read
        // may be an entry that expired (TTL) as well as eviction or routing.
        if (!r.started_at || (s.hit_writer && !m_requests->started_at(*s.hit_writer))) {
            not_judged(a, m_untimed_short,
                       "read less than an entry the replay in log order keeps alive; without "
                       "logged times it may have expired (TTL): not judged a miss");
            return true;
        }
        if (read_within_estimate(r, s, a)) {
            not_judged(a, m_within_estimate,
                       "read less than the entry the simulation hit, within the error band of its "
                       "estimated length: not judged a miss");
            return true;
        }
        if (m_shown_now && a.reported->read >=
                               m_shown_now->read -
                                   m_rules.provider(a.policy).integer("writer_read_slack_tokens")) {
            m_writer_read_provider = a.policy;
            not_judged(a, m_writer_read, writer_read_note(s, a).c_str());
            return true;
        }
        if (change_in_assumed_order(r, outcome)) {
            m_render_order_provider = r.provider;
            not_judged(a, m_render_order,
                       "read less than the prefix before a changed tool definition, which the "
                       "assumed render order puts after the system prompt: not judged a miss");
            return true;
        }
        return false;
    }

    // CW022 as the kind of a CW031: less was read than an entry the
    // simulation holds alive. Where the cache reports no writes, only what
    // the log's reads show cached is counted lost.
    void explain_short_read(const Request& r, const sim::SimResult& s,
                            const analysis::RequestOutcome& outcome, const RequestAudit& a,
                            const std::string& numbers, Finding& f) const
    {
        const std::int64_t missing = a.expected.read - a.reported->read;
        f.kind = rule::k_unexplained_miss;
        f.tokens_lost = missing;
        f.partner = s.hit_writer ? m_requests->id(*s.hit_writer) : "";
        // "identical" only where both texts are logged; an automatic cache
        // has no marks.
        const bool unlogged_head =
            !r.segments.empty() && r.segments.front().kind == model::SegmentKind::unlogged;
        f.message = fmt::format(
            "{}: {} {}prefix {} {} was alive and visible, but {} fewer tokens were read "
            "(CW022 unexplained-miss: eviction, routing or isolation)",
            numbers, unlogged_head ? "an assumed-identical" : "an identical",
            s.uses_breakpoints ? "marked " : "", s.uses_breakpoints ? "written by" : "cached by",
            f.partner, group_digits(missing));
        if (m_shown_now && a.expected.read - m_shown_now->read > tolerance(a)) {
            f.tokens_lost = m_shown_now->read - a.reported->read;
            f.message += fmt::format(
                "; the log shows {} of them cached ({} read them): the rest assumes that {}'s "
                "prompt was stored, which the provider does not report, so {} are counted lost",
                group_digits(m_shown_now->read), m_requests->id(m_shown_now->by), f.partner,
                group_digits(f.tokens_lost));
        }
        // In the message, not only in the JSON notes.
        if (const auto route = other_route(r, outcome)) {
            f.message += "; " + *route;
        }
    }

    void compare(const Request& r, const sim::SimResult& s, const analysis::RequestOutcome& outcome,
                 RequestAudit& a)
    {
        // A forced policy (an engine's cache over an API's log) answers "what
        // would it have reused", not "was the bill right".
        if (!a.reported || !a.compared) {
            return;
        }
        const auto& rep = *a.reported;
        const std::int64_t tolerance = this->tolerance(a);
        const std::int64_t d_read = rep.read - a.expected.read;
        const std::int64_t d_write = rep.write() - a.expected.write();
        const bool elsewhere = read_beyond_shared_prefix(a);
        if (std::abs(d_read) <= tolerance && std::abs(d_write) <= tolerance && !elsewhere) {
            return;
        }
        a.mismatch = true;
        Finding f = make_finding(rule::k_usage_mismatch, r);
        f.location.path = "usage";
        const std::string numbers = fmt::format(
            "reported read {} / write {} / fresh {}, expected read {} / write {} / fresh {}",
            group_digits(rep.read), group_digits(rep.write()), group_digits(rep.fresh),
            group_digits(a.expected.read), group_digits(a.expected.write()),
            group_digits(a.expected.fresh));
        if (d_read < -tolerance && short_read_not_judged(r, s, outcome, a)) {
            return;
        }
        if (d_read < -tolerance) {
            explain_short_read(r, s, outcome, a, numbers, f);
        } else if (d_read > tolerance || elsewhere) {
            if (!explain_extra_read(r, s, outcome, a, numbers, tolerance, f)) {
                not_judged(a, m_over_estimate,
                           "read past the simulation's units, within the error band of the "
                           "shared prefix's estimated length: not judged");
                return;
            }
        } else {
            f.kind = !s.minimum_known ? rule::k_below_minimum : "writes";
            f.message = fmt::format("{}: the writes differ{}", numbers, minimum_doubt(r, s));
        }
        if (a.breakpoints_assumed) {
            f.message += " (breakpoints not logged: Claude Code's placement assumed)";
        }
        add(std::move(f), SIZE_MAX);
    }

    // CW023: a request whose writes all died unread paid the premium for nothing.
    void advise_writes()
    {
        // A request whose every write died unread paid the write premium for
        // nothing. One finding per stream, naming the first such request.
        // By request, in request order: writes, and those dead unread.
        std::vector<std::pair<std::uint32_t, std::uint32_t>> per_writer(m_result.requests.size());
        m_caches.for_each_write([&](const sim::WriteReport& w) {
            auto& [writes, dead] = per_writer[w.writer];
            ++writes;
            dead += (w.dead && w.reads == 0) ? 1 : 0;
        });
        std::map<std::string, Finding> per_stream;
        // Of those requests, the ones that read from the cache too, and what
        // they read: a breakpoint such a request's read came through is not
        // one to drop, whatever its write cost.
        std::map<std::string, std::pair<std::size_t, std::int64_t>> also_read;
        for (std::size_t writer = 0; writer < per_writer.size(); ++writer) {
            const auto [writes, dead] = per_writer[writer];
            const RequestAudit& a = m_result.requests[writer];
            const Split& paid = a.reported ? *a.reported : a.expected;
            // Claude Code places its breakpoints itself: nothing the user can drop.
            // Without a start time nothing is known to have expired.
            if (writes == 0 || dead != writes || paid.write() == 0 || a.breakpoints_assumed ||
                !a.started_at) {
                continue;
            }
            const Request r = m_requests->head(writer);
            auto [it, first] =
                per_stream.try_emplace(r.stream, make_finding(rule::k_write_without_read, r));
            Finding& f = it->second;
            if (!first) {
                ++f.occurrences;
            }
            f.location.path = "cache_control";
            f.tokens_lost += paid.write();
            if (paid.read > 0) {
                auto& [requests, tokens] = also_read[r.stream];
                ++requests;
                tokens += paid.read;
            }
            if (const ruleset::PriceSet* p = prices_of(writer)) {
                f.cost_usd = f.cost_usd.value_or(0) +
                             (static_cast<double>(paid.write_5m) * (p->write_5m - p->input) +
                              static_cast<double>(paid.write_1h) * (p->write_1h - p->input)) /
                                 1e6;
            }
        }
        for (auto& [stream, f] : per_stream) {
            f.message =
                fmt::format("{} wrote {} tokens to the cache that expired unread{}",
                            count_noun(f.occurrences, "request"), group_digits(f.tokens_lost),
                            f.cost_usd ? fmt::format(": {} USD of write premium wasted",
                                                     format_usd(*f.cost_usd))
                                       : "");
            if (const auto it = also_read.find(stream); it != also_read.end()) {
                const auto [requests, tokens] = it->second;
                f.message +=
                    f.occurrences == 1
                        ? fmt::format(" (it also read {} tokens from the cache: keep the "
                                      "breakpoint that read came through, or the read is lost "
                                      "with the write)",
                                      group_digits(tokens))
                        : fmt::format(" ({} of them also read {} tokens from the cache: keep the "
                                      "breakpoints those reads came through, or the reads are "
                                      "lost with the writes)",
                                      group_count(requests), group_digits(tokens));
            }
            add(std::move(f), SIZE_MAX);
        }
    }

    // A stream's use of the caches with a choice of TTL (Anthropic, Bedrock).
    struct StreamUse {
        std::vector<std::size_t> requests;
        std::int64_t expired_tokens = 0; // re-written after gaps of 5 min to 1 h
        std::int64_t written_5m = 0;
        std::int64_t written_1h = 0;
    };

    [[nodiscard]] std::map<std::string, StreamUse> ttl_streams() const
    {
        std::map<std::string, StreamUse> streams;
        for (std::size_t i = 0; i < m_result.requests.size(); ++i) {
            const auto& a = m_result.requests[i];
            if ((a.policy != "anthropic" && a.policy != "bedrock") || a.breakpoints_assumed) {
                continue; // the only caches with a choice of TTL, when the user makes it
            }
            auto& s = streams[a.stream];
            s.requests.push_back(i);
            const Split& paid = a.reported ? *a.reported : a.expected;
            s.written_5m += paid.write_5m;
            s.written_1h += paid.write_1h;
        }
        for (const auto& f : m_result.findings) {
            if (f.rule == rule::k_ttl_expired) {
                streams[f.stream].expired_tokens += f.tokens_lost;
            }
        }
        return streams;
    }

    // CW024: per stream, the TTL its reuse gaps call for.
    void advise_ttl()
    {
        const double five = m_rules.provider("anthropic").ttl_seconds("5m");
        const double hour = m_rules.provider("anthropic").ttl_seconds("1h");
        for (const auto& [name, s] : ttl_streams()) {
            if (s.requests.size() < 2) {
                continue;
            }
            std::size_t mid_gaps = 0; // between 5 min and 1 h
            double longest = 0;
            for (std::size_t k = 1; k < s.requests.size(); ++k) {
                const auto& prev = m_result.requests[s.requests[k - 1]];
                const auto& next = m_result.requests[s.requests[k]];
                if (!prev.started_at || !next.started_at) {
                    continue;
                }
                const double gap = seconds_between(*prev.started_at, *next.started_at);
                longest = std::max(longest, gap);
                mid_gaps += (gap > five && gap <= hour) ? 1 : 0;
            }
            if (s.written_5m > 0 && mid_gaps > 0 && s.expired_tokens > 0) {
                advise_1h(name, s, mid_gaps);
            } else if (s.written_1h > 0 && longest > 0 && longest <= five) {
                advise_5m(name, s, longest);
            }
        }
    }

    // A TTL advice (CW024) on a stream, told at its first request.
    Finding ttl_advice(std::size_t first, std::string kind) const
    {
        Finding f = make_finding(rule::k_ttl_advice, m_requests->head(first));
        f.kind = std::move(kind);
        f.location.path = "cache_control";
        return f;
    }

    // The prices of request `index`; null when it has none.
    [[nodiscard]] const ruleset::PriceSet* prices_of(std::size_t index) const
    {
        const auto it = m_prices.find(index);
        return it == m_prices.end() ? nullptr : &it->second;
    }

    // 5m entries expired in gaps a 1h TTL would have bridged: advised when it
    // saves more than the 1h premium costs. With 1h the expired tokens are
    // read instead of written again, and only the rest of the writes pay the
    // 1h premium (the pricing rule: a 1h write costs 2× input, 5m 1.25×).
    void advise_1h(const std::string& name, const StreamUse& s, std::size_t mid_gaps)
    {
        const std::size_t first = s.requests.front();
        Finding f = ttl_advice(first, "use-1h");
        if (const ruleset::PriceSet* p = prices_of(first)) {
            const double saved =
                static_cast<double>(s.expired_tokens) * (p->write_5m - p->read) / 1e6;
            const auto still_written = std::max<std::int64_t>(0, s.written_5m - s.expired_tokens);
            const double extra =
                static_cast<double>(still_written) * (p->write_1h - p->write_5m) / 1e6;
            f.cost_usd = saved - extra;
        }
        f.tokens_lost = s.expired_tokens;
        f.message =
            fmt::format("{} between 5 minutes and 1 hour in stream {} let 5m entries "
                        "expire ({} tokens written again); a 1h TTL would keep them{}",
                        count_noun(static_cast<std::uint64_t>(mid_gaps), "gap"), name,
                        group_digits(s.expired_tokens),
                        f.cost_usd ? fmt::format(", net {}{} USD", *f.cost_usd < 0 ? "" : "+",
                                                 format_usd(*f.cost_usd))
                                   : "");
        if (!f.cost_usd || *f.cost_usd > 0) {
            add(std::move(f), first);
        }
    }

    // 1h entries in a stream that never waits 5 minutes: the premium buys nothing.
    void advise_5m(const std::string& name, const StreamUse& s, double longest)
    {
        const std::size_t first = s.requests.front();
        Finding f = ttl_advice(first, "use-5m");
        if (const ruleset::PriceSet* p = prices_of(first)) {
            f.cost_usd = static_cast<double>(s.written_1h) * (p->write_1h - p->write_5m) / 1e6;
        }
        f.message =
            fmt::format("stream {} never waits more than {:.0f} s between requests: the 1h "
                        "premium on {} written tokens buys nothing over 5m{}",
                        name, longest, group_digits(s.written_1h),
                        f.cost_usd ? fmt::format(" (saves {} USD)", format_usd(*f.cost_usd)) : "");
        add(std::move(f), first);
    }

    void summarise()
    {
        std::vector<double> ratios;
        std::vector<double> ttft_new_or_expired;
        std::vector<double> ttft_warm;
        for (const auto& a : m_result.requests) {
            m_result.totals.add(a);
            // A request whose prompt was not logged is neither new nor warm:
            // nothing says what it shared with the requests before it.
            const bool grouped = a.status != analysis::RequestOutcome::Status::not_logged;
            if (grouped) {
                (a.new_or_expired ? m_result.new_or_expired : m_result.warm).add(a);
            }
            if (a.reported && a.reported->input() > 0) {
                ratios.push_back(static_cast<double>(a.reported->read) /
                                 static_cast<double>(a.reported->input()));
            }
            if (a.ttft_seconds && grouped) {
                (a.new_or_expired ? ttft_new_or_expired : ttft_warm).push_back(*a.ttft_seconds);
            }
        }
        m_result.hit_ratio = distribution(std::move(ratios));
        m_result.ttft_new_or_expired = distribution(std::move(ttft_new_or_expired));
        m_result.ttft_warm = distribution(std::move(ttft_warm));
    }

    // Compute saved (prefill FLOPs and GPU-seconds) by the reported reads, on
    // the reference model: a cached prefix of h tokens saves exactly F(h).
    void compute()
    {
        const auto& c = m_options.compute;
        if (c.model == nullptr) {
            return;
        }
        ComputeSaved& out = m_result.compute;
        out.enabled = true;
        out.model = c.model->id;
        out.measured = c.profile.measured;
        out.gpu = c.profile.gpu;
        const prefill::FlopModel flops(*c.model);
        std::map<std::size_t, bool> unread_writer; // writer -> every write died unread
        std::vector<sim::WriteReport> live;
        m_caches.for_each_write([&](const sim::WriteReport& w) {
            auto [it, first] = unread_writer.try_emplace(w.writer, true);
            it->second = it->second && w.dead && w.reads == 0;
            if (!w.dead) {
                live.push_back(w);
            }
        });
        // Nested entries share their KV: count an entry only when no longer
        // live entry extends it.
        std::sort(live.begin(), live.end(),
                  [](const auto& x, const auto& y) { return x.tokens > y.tokens; });
        std::vector<const sim::WriteReport*> kept;
        std::unordered_map<std::size_t, std::vector<Hash128>> chains; // of live writers
        const auto chains_of = [&](std::size_t writer) -> const std::vector<Hash128>& {
            auto [it, fresh] = chains.try_emplace(writer);
            if (fresh) {
                m_requests->chains(writer, it->second);
            }
            return it->second;
        };
        for (const auto& w : live) {
            const Hash128 chain = chains_of(w.writer)[w.segment];
            const bool covered =
                std::any_of(kept.begin(), kept.end(), [&](const sim::WriteReport* k) {
                    const auto& longer = chains_of(k->writer);
                    return w.segment < longer.size() && longer[w.segment] == chain;
                });
            if (!covered) {
                kept.push_back(&w);
                out.live_kv_bytes += flops.kv_bytes(static_cast<double>(w.tokens));
            }
        }
        for (std::size_t i = 0; i < m_result.requests.size(); ++i) {
            const auto& a = m_result.requests[i];
            out.reference = out.reference || m_rules.find_model(a.model) != c.model;
            // Under a forced policy the question is what that cache would
            // have saved; otherwise what the provider reports it did.
            const Split* used =
                m_options.policy.empty() ? (a.reported ? &*a.reported : nullptr) : &a.expected;
            if (used == nullptr) {
                continue;
            }
            const auto read = static_cast<double>(used->read);
            out.saved_flops += flops.saved(read);
            out.saved_seconds += read > 0 ? c.profile.seconds(read) : 0.0;
            if (const auto it = unread_writer.find(i); it != unread_writer.end() && it->second) {
                out.unread_write_flops +=
                    flops.flops(read + static_cast<double>(used->write())) - flops.flops(read);
            }
        }
    }

    const ruleset::Rules& m_rules;
    const AuditOptions& m_options;
    AuditResult& m_result;
    Simulators m_caches;
    const analysis::RequestStore* m_requests = nullptr;
    std::unordered_map<std::size_t, ruleset::PriceSet> m_prices;
    std::vector<std::size_t> m_pending;        // findings of the request being audited
    std::map<FoldKey, std::size_t> m_first_of; // the first finding of each fold_key
    bool m_expired_now = false;
    std::map<std::string, std::size_t> m_second_hand;    // priced requests by model, see below
    std::map<std::string, std::size_t> m_untimed_priced; // by model: see count_price_assumptions
    std::size_t m_within_estimate = 0; // reads short of the hit within the estimate's band
    std::size_t m_untimed_short = 0;   // short reads of a replay without times
    std::size_t m_render_order = 0;    // short reads a change in assumed-order tools explains
    std::string m_render_order_provider;
    std::size_t m_thirty_minute_writes = 0; // requests with GPT-5.6+ writes (30-minute entries)
    std::size_t m_over_estimate = 0;        // reads past the units within the estimate's band
    std::size_t m_writer_read = 0;          // short reads no shorter than the log shows cached
    std::string m_writer_read_provider;
    struct LoggedCosts {
        std::size_t requests = 0;
        double logged = 0;   // USD, as the log gives them
        double computed = 0; // USD, reported usage at the prices used
    } m_logged_costs;
    std::vector<Shown> m_shown; // by request, once a cache with unreported writes runs
    // For the request being audited, on a cache with unreported writes.
    std::optional<Shown> m_shown_now;
};

} // namespace

AuditResult
audit(std::vector<Request> requests, const model::TextStore& texts, const ruleset::Rules& rules,
      const AuditOptions& options)
{
    analysis::Analyzer analyzer(rules, options.analyze, texts);
    for (auto& r : requests) {
        analyzer.add(std::move(r));
    }
    requests = {};
    return audit(analyzer, rules, options);
}

AuditResult
audit(analysis::Analyzer& analyzer, const ruleset::Rules& rules, const AuditOptions& options)
{
    AuditResult result;
    result.analysis = analyzer.finish();
    Auditor auditor(rules, options, result);
    auditor.run(analyzer.requests());
    return result;
}

} // namespace cachewise::account
