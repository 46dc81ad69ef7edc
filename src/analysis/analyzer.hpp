#pragma once

#include "analysis/divergence.hpp"
#include "analysis/finding.hpp"
#include "analysis/request_store.hpp"
#include "model/request.hpp"
#include "model/text_store.hpp"
#include "ruleset/rules.hpp"
#include "util/interned.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace cachewise::analysis {

struct AnalyzeOptions {
    double window_seconds = 3600; // how far back a partner may be
    std::size_t top = 10;         // rows in the top-N lists
    // Counts a text with a model's own tokenizer, when there is one: token
    // positions inside segments counted exactly (cli::TokenizerHook).
    ExactTextCounter count_exact;
    // Threads the analysis may use: with more than one, the requests'
    // segments are rebuilt from the store on a second thread, ahead of it.
    unsigned threads = 1;
};

// What happened to one request relative to its partner.
struct RequestOutcome {
    enum class Status {
        cold,       // no earlier request shares a prefix: a cold start
        extends,    // the partner's whole prompt is a prefix of this one
        branched,   // a new conversation on a shared head: parts from another stream's
                    // partner in the messages, or at the first message
        diverged,   // parted inside what the partner had cached: a break (see finding)
        uncached,   // parted after the partner's last breakpoint: nothing cached was lost
        truncated,  // this whole prompt is a strict prefix of the partner's: history dropped,
                    // or a shorter call of the same conversation (nothing broke before its end)
        not_logged, // only the response was logged
    };
    std::string id;
    Interned stream; // one copy per session, not per request
    std::string partner;
    std::optional<std::size_t> partner_index; // the partner's place in Analyzer::requests()
    Status status = Status::cold;
    std::int64_t prompt_tokens = 0;
    std::int64_t shared_tokens = 0;     // tokens of the prefix shared with the partner
    std::optional<std::size_t> finding; // index into AnalysisResult::findings
};
std::string_view to_string(RequestOutcome::Status status);

struct CauseSummary {
    std::string rule;
    std::string name;
    std::size_t count = 0;
    std::int64_t tokens_lost = 0;
    std::optional<double> cost_usd;
    std::vector<std::pair<std::string, std::size_t>> top_locations; // path, count
};

// A prefix shared by several requests: a template family and its stable head.
struct HotPrefix {
    std::string model;
    std::string ends_at; // path of its last segment
    std::size_t segments = 0;
    std::int64_t tokens = 0;
    std::size_t requests = 0;
    std::size_t streams = 0;
    std::string example; // a request id
};

struct AnalysisResult {
    double window_seconds = 0;
    std::size_t requests = 0;
    std::size_t streams = 0;
    std::size_t cold_starts = 0;
    // Of them, those whose reported usage shows a cache read: warmed by
    // traffic the log does not hold, so "cold" only within the log.
    std::size_t cold_starts_read = 0;
    // Of those, the ones whose prefix the log holds in a request more than
    // the window before: warmed by the log, not outside it.
    std::size_t cold_starts_read_before_window = 0;
    std::size_t extends = 0;
    std::size_t branched = 0;
    std::size_t breaks = 0;
    std::size_t uncached = 0;
    std::size_t truncated = 0;
    std::size_t not_logged = 0;
    std::int64_t input_tokens = 0;
    std::int64_t shared_tokens = 0;
    std::int64_t tokens_lost = 0;
    std::optional<double> cost_lost_usd;
    std::vector<Finding> findings;       // breaks, in time order
    std::vector<Finding> dynamic_fields; // CW010 in cold-start prompts, folded by place
    std::vector<Finding> latent; // CW003/CW004/CW010 after the last breakpoint (severity info)
    std::vector<CauseSummary> causes;
    std::vector<HotPrefix> hot_prefixes;
    std::vector<RequestOutcome> outcomes; // in time order

    // Σ tokens shared with the partner ÷ Σ input tokens.
    [[nodiscard]] double reuse_potential() const
    {
        return input_tokens > 0
                   ? static_cast<double>(shared_tokens) / static_cast<double>(input_tokens)
                   : 0.0;
    }
};

// Finds, for every request, the earlier request it should have reused (its
// partner: the one within the window whose chain shares the longest prefix;
// ties to the most recent; the stream's previous request when nothing is
// shared), where the two part and why. Requests are added as they are read
// and kept as paths in a shared prefix structure (RequestStore); finish()
// orders them by start time and analyses them in one pass, with hash lookups
// only, so time grows linearly with the log.
class Analyzer {
public:
    Analyzer(const ruleset::Rules& rules, AnalyzeOptions options, const model::TextStore& texts);
    ~Analyzer();
    Analyzer(const Analyzer&) = delete;
    Analyzer& operator=(const Analyzer&) = delete;

    void add(model::Request&& request);
    AnalysisResult finish();

    // After finish(): the requests in start order, as outcomes[i] describes
    // requests().get(i), with inferred streams filled in and token counts
    // pinned to their partners'.
    [[nodiscard]] const RequestStore& requests() const;
    // After the last read of requests(): frees them (on a 1 GB Claude Code
    // folder about 75 MB), so that a report's output does not add to them.
    void release_requests();

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

// Orders requests by start time; one without a start time keeps its place in
// the log (stable).
void sort_by_start(std::vector<model::Request>& requests);

} // namespace cachewise::analysis
