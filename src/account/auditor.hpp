#pragma once

#include "account/cost.hpp"
#include "account/usage_split.hpp"
#include "analysis/analyzer.hpp"
#include "model/text_store.hpp"
#include "prefill/profile.hpp"
#include "ruleset/rules.hpp"
#include "sim/simulator.hpp"
#include "util/interned.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cachewise::account {

// Compute saved by cache reads, on a reference open model.
struct ComputeOptions {
    const ruleset::ModelShape* model = nullptr; // nullptr: no compute section
    prefill::Profile profile;                   // measured, or modelled on a GPU
};

struct AuditOptions {
    analysis::AnalyzeOptions analyze;
    ComputeOptions compute;
    sim::SimOptions sim;
    // Simulate every request with this provider's or engine's cache
    // (`audit --policy`); empty: each request with its own provider's.
    std::string policy;
    // Reported and simulated splits agree within max(tokens, fraction × prompt):
    // the token estimate places breakpoints only that precisely.
    std::int64_t tolerance_tokens = 32;
    double tolerance_fraction = 0.02;
    // --since/--until chose the requests: the earlier ones are not replayed,
    // so "in the log" means "in the window" and a note says so.
    bool windowed = false;
    // Threads the audit may use: with more than one, the requests are rebuilt
    // from the store on a second thread, ahead of the simulation.
    unsigned threads = 1;
};

// One request: what the cache should have done, what was reported, the cost.
struct RequestAudit {
    std::string id;
    Interned stream;
    Interned model;
    Interned day; // YYYY-MM-DD of the start, "" when unknown
    std::optional<Timestamp> started_at;
    analysis::RequestOutcome::Status status = analysis::RequestOutcome::Status::cold;
    std::string partner;
    std::int64_t prompt_tokens = 0;
    std::int64_t shared_tokens = 0;
    // Not expected warm: a cold start, a new conversation on a shared head
    // (branched) or after its entry expired. Distinct from analyze's "cold
    // start" (no earlier request shares a prefix), a narrower set.
    bool new_or_expired = true;

    Interned policy;        // the cache simulated: the provider's or the forced one
    bool simulated = false; // the prompt was logged
    bool compared = false;  // the simulation models the provider that reported the usage
    std::int64_t lost_to_granularity = 0; // see sim::SimResult
    std::int64_t lost_to_eviction = 0;
    std::vector<std::string> notes; // the simulation's
    bool rejected = false;
    bool breakpoints_assumed = false;
    Split expected;                // the simulation, with the reported output
    std::optional<Split> reported; // normalised reported usage
    bool write_ttl_assumed = false;
    bool mismatch = false; // CW031
    // Reported and simulated reads differ by no more than the estimated
    // token positions allow (the estimator's error band): neither a CW031
    // nor a match.
    bool not_judged = false;

    bool priced = false;
    // Unpriced by the rules, the cost the log reports for the call (labelled
    // "reported": cachewise did not compute it).
    std::optional<double> reported_cost_usd;
    Money actual;             // reported usage at the request's prices
    Money no_cache;           // every input token at the base price
    Money expected_cost;      // the simulation with the request's own breakpoints
    Money ideal;              // all shared (or read) tokens read, no write: a lower bound
    double write_premium = 0; // reported writes above the base input price
    double read_savings = 0;  // reported reads below it
    std::optional<double> ttft_seconds;
    std::vector<std::size_t> findings; // indices into AuditResult::findings
};

struct Totals {
    std::size_t requests = 0;
    std::size_t with_usage = 0;
    std::size_t with_read = 0;
    std::size_t priced = 0;
    std::size_t with_reported_cost = 0; // unpriced requests whose log gives their cost
    double reported_cost = 0;
    Split reported;
    // The simulation of the requests that report usage, the side to compare
    // with `reported`, and of those that do not (an error answer, a response
    // cut off): expected_shown() is the former, or the latter when none reports.
    Split expected;
    Split expected_without_usage;
    Money actual;
    Money no_cache;
    Money expected_cost;
    Money ideal;
    double write_premium = 0; // paid above the base input price for writes
    double read_savings = 0;  // saved below the base input price by reads
    std::int64_t lost_to_granularity = 0;
    std::int64_t lost_to_eviction = 0;

    // Σ read ÷ Σ (read + write + fresh); nothing when no request reported
    // usage (not a 0% that reads as every read missed).
    [[nodiscard]] std::optional<double> hit_rate() const
    {
        if (reported.input() == 0) {
            return std::nullopt;
        }
        return static_cast<double>(reported.read) / static_cast<double>(reported.input());
    }
    [[nodiscard]] const Split& expected_shown() const
    {
        return with_usage > 0 ? expected : expected_without_usage;
    }
    // Requests without usage left out of expected_shown(), beside some with.
    [[nodiscard]] bool uncompared() const { return with_usage > 0 && requests > with_usage; }
    [[nodiscard]] double expected_hit_rate() const
    {
        const Split& e = expected_shown();
        return e.input() > 0 ? static_cast<double>(e.read) / static_cast<double>(e.input()) : 0.0;
    }
    void add(const RequestAudit& r);
};

struct Distribution {
    std::size_t count = 0;
    double p50 = 0;
    double p95 = 0;
};

struct ComputeSaved {
    bool enabled = false;
    std::string model;      // the reference open model
    bool reference = false; // the log's models are not that model
    bool measured = false;  // the time rate comes from a measured profile
    std::string gpu;
    double saved_flops = 0;        // Σ F(read) over requests
    double saved_seconds = 0;      // at the profile's rate for each length
    double unread_write_flops = 0; // prefill of spans written and never read
    double live_kv_bytes = 0;      // KV held by entries alive at the end of the log
};

struct AuditResult {
    std::string policy;                // the forced cache policy, empty when each provider's own
    std::vector<std::string> policies; // the caches simulated
    ComputeSaved compute;
    std::vector<RequestAudit> requests; // in start order
    std::vector<analysis::Finding> findings;
    Totals totals;
    Totals new_or_expired;
    Totals warm;
    Distribution hit_ratio;           // per request read ÷ input (requests with usage)
    Distribution ttft_new_or_expired; // seconds, where the log has first_token_at
    Distribution ttft_warm;
    std::vector<std::string> unpriced_models;
    std::size_t assumed_breakpoints = 0; // requests simulated with assumed breakpoints
    std::size_t untimed = 0;             // requests without a logged start time
    std::vector<std::string> notes;      // what was assumed or not judged, and why
    analysis::AnalysisResult analysis;

    // Totals by day, stream or model.
    [[nodiscard]] std::map<std::string, Totals> by(std::string_view key) const;
};

// Runs analyze, the cache simulation and the accounting over requests read
// from a log. Ordered by start time inside.
AuditResult audit(std::vector<model::Request> requests, const model::TextStore& texts,
                  const ruleset::Rules& rules, const AuditOptions& options);
// The same over requests already added to an analyzer as they were read (the
// analyzer keeps them as shared paths, not each with its own history). The
// analyzer's options are its own; options.analyze is not read again.
AuditResult audit(analysis::Analyzer& analyzer, const ruleset::Rules& rules,
                  const AuditOptions& options);

} // namespace cachewise::account
