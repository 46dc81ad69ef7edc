#pragma once

#include "model/breakpoints.hpp"
#include "model/request.hpp"
#include "ruleset/rules.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace cachewise::sim {

struct SimOptions {
    // When the log has no first_token_at, an entry becomes visible this long
    // after its writer started ("a cache entry only becomes available after
    // the first response begins").
    double visibility_latency_seconds = 2.0;
};

// Why the longest prefix an earlier request had cached was not read.
enum class MissReason {
    expired,    // older than its TTL (CW020)
    concurrent, // the writer's response had not begun (CW021)
    lookback,   // alive, but more than the lookback window before every breakpoint (CW015)
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

// What Anthropic's cache should have done with one request.
struct SimResult {
    bool rejected = false;   // the API answers 400: nothing is cached
    std::string reject_rule; // CW013 (more than 4 breakpoints) or CW014 (TTL order)
    std::string reject_reason;
    bool breakpoints_assumed = false; // the log had none; Claude Code's placement assumed
    std::vector<model::Breakpoint> breakpoints;
    std::vector<std::size_t> below_minimum; // breakpoint segments too short to write (CW012)
    std::int64_t minimum_tokens = 0;
    bool minimum_known = true;

    std::int64_t read = 0;
    std::int64_t write_5m = 0;
    std::int64_t write_1h = 0;
    std::int64_t fresh = 0;
    std::optional<std::size_t> hit_segment;
    std::optional<std::size_t> hit_writer;
    std::optional<Missed> missed;     // the deepest entry it could not read
    std::vector<std::size_t> written; // segments whose prefixes were written
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

// A faithful model of Anthropic's prompt cache (rules "Breakpoints", "The
// lookback window is 20 blocks", "Cache lifetime", "Pricing", "Automatic
// caching", "Isolation"). Requests must be fed in start order.
class AnthropicCache {
public:
    AnthropicCache(const ruleset::ProviderRules& rules, SimOptions options = {});

    SimResult simulate(const model::Request& request, std::size_t index);

    // Every write, with its reads; call after the last request.
    [[nodiscard]] std::vector<WriteReport> writes() const;

    // The breakpoints a request is billed by: its own, or, when the log drops
    // them (Claude Code), one at the end of the unlogged system prompt and
    // tools and one on the last block, with the TTL its usage reports.
    static std::vector<model::Breakpoint> effective_breakpoints(const model::Request& request,
                                                                bool& assumed);

private:
    struct Entry {
        model::Ttl ttl = model::Ttl::five_minutes;
        std::int64_t written_at = 0; // start of the writer (micros)
        std::int64_t visible_at = 0; // first token of the writer
        std::int64_t touched_at = 0; // start of the last request that wrote or read it
        std::size_t write = 0;       // index into m_writes
    };
    struct Key {
        Hash128 chain;
        std::string workspace;
        friend bool operator==(const Key&, const Key&) = default;
    };
    struct KeyHash {
        std::size_t
        operator()(const Key& k) const noexcept
        {
            return Hash128Hasher{}(k.chain) ^ std::hash<std::string>{}(k.workspace);
        }
    };

    [[nodiscard]] double ttl_seconds(model::Ttl ttl) const;

    const ruleset::ProviderRules& m_rules;
    SimOptions m_options;
    std::unordered_map<Key, Entry, KeyHash> m_entries;
    std::vector<WriteReport> m_writes;
    std::int64_t m_last_start = 0;
};

} // namespace cachewise::sim
