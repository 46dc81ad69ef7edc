#pragma once

#include "model/breakpoints.hpp"
#include "model/request.hpp"
#include "ruleset/rules.hpp"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cachewise::sim {

struct SimOptions {
    // When the log has no first_token_at, an entry becomes visible this long
    // after its writer started ("a cache entry only becomes available after
    // the first response begins").
    double visibility_latency_seconds = 2.0;
    // Serving engines: tokens per block (vLLM) or page (SGLang); DeepSeek:
    // tokens per storage unit. Unset: the rules' value.
    std::optional<std::int64_t> block_size;
    // Serving engines: KV capacity in blocks; unset: unbounded.
    std::optional<std::int64_t> capacity_blocks;
    // DeepSeek: fixed persistence interval; unset: the rules' value.
    std::optional<std::int64_t> interval_tokens;
};

// Why the longest prefix an earlier request had cached was not read.
enum class MissReason {
    expired,    // older than its TTL (CW020)
    concurrent, // the writer's response had not begun (CW021)
    lookback,   // alive, but more than the lookback window before every breakpoint (CW015)
    evicted,    // pushed out of a serving engine's full cache
};
std::string_view to_string(MissReason reason);

struct Missed {
    MissReason reason = MissReason::expired;
    std::size_t segment = 0; // where the entry ends in this request
    std::int64_t tokens = 0; // its prefix tokens in this request
    std::size_t writer = 0;  // request index that wrote (or last read) it
    double gap_seconds = 0;  // since the entry was written or last read
    double ttl_seconds = 0;
    std::uint32_t positions_back = 0; // lookback: positions from the nearest breakpoint
};

// What a provider's cache should have done with one request. Writes of
// providers with a single write class are in write_5m; providers that bill no
// writes (DeepSeek, Gemini implicit, OpenAI before GPT-5.6, engines) report
// everything not read as fresh.
struct SimResult {
    bool rejected = false;   // the API answers 400: nothing is cached
    std::string reject_rule; // CW013 (too many breakpoints) or CW014 (TTL order)
    std::string reject_reason;
    bool breakpoints_assumed = false; // the log had none; Claude Code's placement assumed
    bool uses_breakpoints = false;    // the provider caches at breakpoints (CW011 applies)
    std::vector<model::Breakpoint> breakpoints;
    std::vector<std::size_t> below_minimum; // breakpoint segments too short to write (CW012)
    std::int64_t minimum_tokens = 0;
    bool minimum_known = true;  // documented or measured exactly for this model
    bool minimum_listed = true; // the model has its own entry (not the provider's default)

    std::int64_t read = 0;
    std::int64_t write_5m = 0;
    std::int64_t write_1h = 0;
    std::int64_t fresh = 0;
    std::optional<std::size_t> hit_segment;
    std::optional<std::size_t> hit_writer;
    std::optional<Missed> missed;     // the deepest entry it could not read
    std::vector<std::size_t> written; // segments whose prefixes were written

    // Tokens shared with a live entry but not read because the cache stores
    // whole blocks, steps or units (vLLM's 999 -> 992), and tokens an earlier
    // request had cached that a full engine evicted.
    std::int64_t lost_to_granularity = 0;
    std::int64_t lost_to_eviction = 0;
    std::vector<std::string> notes;
};

// One write of an entry, for write-without-read advice (CW023).
struct WriteReport {
    std::size_t writer = 0; // request index
    std::size_t segment = 0;
    std::int64_t tokens = 0; // prefix tokens of the entry
    model::Ttl ttl = model::Ttl::five_minutes;
    std::size_t reads = 0;
    bool dead = false; // expired before the log's last request, or written again unread
};

// A cache entry's key: the identity of the prefix and the cache it lives in.
struct EntryKey {
    Hash128 chain;
    std::string scope;
    friend bool operator==(const EntryKey&, const EntryKey&) = default;
};
struct EntryKeyHash {
    std::size_t operator()(const EntryKey& k) const noexcept
    {
        return Hash128Hasher{}(k.chain) ^ std::hash<std::string>{}(k.scope);
    }
};

// A model of one provider's or engine's prompt cache. Requests are fed in
// start order with their index in the log.
class CacheSimulator {
public:
    CacheSimulator(const ruleset::ProviderRules& rules, SimOptions options)
        : m_rules(rules), m_options(options)
    {}
    virtual ~CacheSimulator() = default;
    CacheSimulator(const CacheSimulator&) = delete;
    CacheSimulator& operator=(const CacheSimulator&) = delete;
    virtual SimResult simulate(const model::Request& request, std::size_t index) = 0;
    // Every billed write, with its reads, those that expired unread marked
    // dead; call after the last request. The marks are made in place: the
    // audit of a long log holds one write a request, and a copy of them
    // added to its peak memory.
    [[nodiscard]] virtual const std::vector<WriteReport>& writes() { return m_no_writes; }

protected:
    // What every model reads: its provider's rules and the user's options.
    const ruleset::ProviderRules& m_rules;
    SimOptions m_options;

private:
    const std::vector<WriteReport> m_no_writes;
};

// The policies `audit --policy` accepts: the providers of rules/providers/.
bool is_policy(std::string_view name);

// The simulator of `policy` (a provider name). Throws Error for another name.
std::unique_ptr<CacheSimulator> make_simulator(std::string_view policy, const ruleset::Rules& rules,
                                               const SimOptions& options);

// The cache a request shares: its workspace or API key, and the upstream a
// gateway routed it to (OpenRouter's providers keep separate caches).
std::string scope_of(const model::Request& request);

// When a request's writes become readable: its first token, or its start
// plus the assumed latency; without a logged time, at once (the next request
// in log order sees them).
std::int64_t visible_at(const model::Request& request, std::int64_t start,
                        const SimOptions& options);

// The simulation clock. A request without a logged start is replayed in log
// order: it comes after the requests before it, at the latest start and no
// earlier than their writes became readable, so it is never judged
// concurrent with them (CW021) nor, at the latest start, expired (CW020).
struct ReplayClock {
    std::int64_t last_start = 0;   // the latest logged start (micros)
    std::int64_t last_visible = 0; // the latest time a logged request's writes became readable

    // A request's start (micros) for the simulation.
    std::int64_t start(const model::Request& request, const SimOptions& options)
    {
        if (!request.started_at) {
            return std::max(last_start, last_visible);
        }
        const std::int64_t t = request.started_at->micros;
        last_start = std::max(last_start, t);
        last_visible = std::max(last_visible, visible_at(request, t, options));
        return t;
    }
};

} // namespace cachewise::sim
