#pragma once

#include "sim/prefix_store.hpp"
#include "sim/simulator.hpp"

#include <deque>
#include <map>
#include <unordered_map>

namespace cachewise::sim {

// OpenAI's prompt cache (rules/providers/openai.json).
//
// Before GPT-5.6 ("automatic caching"): every prompt of at least the minimum
// (1,024 tokens) is cached; a later request reads the longest live prefix it
// shares, in steps of 128 tokens (1,300 shared -> 1,280 read); entries live
// 5-10 minutes after their last use (in_memory, cachewise takes 10) and at
// most an hour, or 24 hours with prompt_cache_retention "24h". No write fee.
//
// GPT-5.6 and later ("breakpoints"): a request writes at most 4 breakpoints:
// in implicit mode one at the end of its last message plus the latest 3
// explicit ones, in explicit mode the latest 4 explicit ones (none: nothing
// is cached). A request reads the longest prefix that matches one of the
// latest 80 breakpoints written in its cache, with no lookback limit; entries
// live 30 minutes after their latest write or reuse. Writes cost 1.25x.
//
// prompt_cache_key joins the routing: requests with different keys are
// simulated as separate caches.
class OpenAICache final : public CacheSimulator {
public:
    using CacheSimulator::CacheSimulator;

    SimResult simulate(const model::Request& request, std::size_t index) override;
    [[nodiscard]] const std::vector<WriteReport>& writes() override;

private:
    SimResult automatic(const model::Request& r, std::size_t index, std::int64_t now,
                        const std::string& scope);
    SimResult breakpoints(const model::Request& r, std::size_t index, std::int64_t now,
                          const std::string& scope);
    [[nodiscard]] std::vector<std::size_t>
    chosen_breakpoints(const model::Request& r, const std::vector<std::size_t>& marked) const;
    void read_breakpoint(const model::Request& r, std::int64_t now, const std::string& scope,
                         SimResult& out);
    std::int64_t write_breakpoints(const model::Request& r, const std::vector<std::size_t>& bps,
                                   std::size_t index, std::int64_t now, const std::string& scope,
                                   SimResult& out);

    struct Entry {
        std::int64_t touched_at = 0;
        std::int64_t visible_at = 0;
        std::uint64_t sequence = 0; // order of writing in its scope
        std::size_t write = 0;      // index into m_writes
    };

    PrefixStore m_automatic;
    std::unordered_map<EntryKey, Entry, EntryKeyHash> m_entries;
    std::map<std::string, std::uint64_t> m_sequence; // breakpoints written per scope
    std::vector<WriteReport> m_writes;
    ReplayClock m_clock;
};

} // namespace cachewise::sim
