#pragma once

#include "sim/simulator.hpp"
#include "util/flat_map.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cachewise::sim {

namespace detail {
// An entry of AnthropicCache's table. Outside the class: clang 14 does not
// see a nested struct with member initialisers as default-constructible
// while its class is being defined, which the table's slots need.
struct AnthropicEntry {
    model::Ttl ttl = model::Ttl::five_minutes;
    std::int64_t written_at = 0; // start of the writer (micros)
    std::int64_t visible_at = 0; // first token of the writer
    std::int64_t touched_at = 0; // start of the last request that wrote or read it
    std::size_t write = 0;       // index into m_writes
};
} // namespace detail

// A faithful model of Anthropic's prompt cache (rules "Breakpoints", "The
// lookback window is 20 blocks", "Cache lifetime", "Pricing", "Automatic
// caching", "Isolation"). Requests must be fed in start order.
class AnthropicCache final : public CacheSimulator {
public:
    explicit AnthropicCache(const ruleset::ProviderRules& rules, SimOptions options = {});

    SimResult simulate(const model::Request& request, std::size_t index) override;
    [[nodiscard]] const std::vector<WriteReport>& writes() override;

    // The breakpoints a request is billed by: its own, or, when the log drops
    // them (Claude Code), one at the end of the unlogged system prompt and
    // tools and one on the last block, with the TTL its usage reports.
    static std::vector<model::Breakpoint> effective_breakpoints(const model::Request& request,
                                                                bool& assumed);

private:
    using Entry = detail::AnthropicEntry;
    // The request being simulated, its isolation scope and start (micros).
    struct Probe {
        const model::Request& request;
        Hash128 scope; // hash of its isolation scope, half of each entry's key
        std::int64_t t = 0;
    };
    [[nodiscard]] double ttl_seconds(model::Ttl ttl) const;
    [[nodiscard]] bool rejected(const model::Request& r, const std::vector<model::Breakpoint>& bps,
                                SimResult& out) const;
    [[nodiscard]] Entry* entry_at(const Probe& p, std::size_t segment);
    [[nodiscard]] bool alive(const Probe& p, const Entry& e) const;
    [[nodiscard]] std::optional<std::size_t> find_hit(const Probe& p,
                                                      const std::vector<model::Breakpoint>& bps);
    [[nodiscard]] std::optional<Missed> deepest_miss(const Probe& p,
                                                     const std::vector<model::Breakpoint>& bps,
                                                     std::optional<std::size_t> hit);
    void write_entries(const Probe& p, const std::vector<const model::Breakpoint*>& eligible,
                       std::optional<std::size_t> hit, std::size_t index, SimResult& out);

    void refresh_nested(const Probe& p, std::size_t hit);
    [[nodiscard]] static Hash128 key_of(const Probe& p, std::size_t segment);

    bool m_refresh_nested = false;
    // By hash_pair(scope hash, chain): one probe of a flat table per segment
    // looked at, where a key holding the scope string cost a copy and a
    // string hash each (a 128-bit collision is not a practical concern).
    FlatMap<Hash128, Entry, Hash128Hasher> m_entries;
    std::vector<WriteReport> m_writes;
    ReplayClock m_clock;
};

} // namespace cachewise::sim
