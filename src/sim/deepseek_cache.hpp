#pragma once

#include "sim/simulator.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>

namespace cachewise::sim {

// DeepSeek's context caching on disk (rules/providers/deepseek.json), best
// effort. "Each cached prefix is an independent, complete unit. A subsequent
// request can only hit the cache if it fully matches a cache prefix unit."
// Units are persisted after each request:
//   - at the end of its input and at the end of its output (the response
//     message as the next turn sends it back, model::Continuation);
//   - at the longest prefix it shares with an earlier request (common-prefix
//     detection: A+B then A+C misses, then A is persisted and A+D hits);
//   - every `interval_tokens` tokens (the interval is not published).
// A hit is the longest unit the request fully matches, in whole storage
// units (64 tokens by default, uncertain). No write fee.
class DeepSeekCache final : public CacheSimulator {
public:
    using CacheSimulator::CacheSimulator;

    SimResult simulate(const model::Request& request, std::size_t index) override;

private:
    struct Unit {
        bool boundary = false;     // ends at the keyed segment boundary
        std::int64_t interval = 0; // an interval unit inside the keyed segment: its length
        std::int64_t touched_at = 0;
        std::int64_t visible_at = 0;
        std::size_t writer = 0;
    };
    struct Seen {
        std::int64_t touched_at = 0;
    };
    [[nodiscard]] bool alive(std::int64_t touched_at, std::int64_t now) const;
    void persist(const Hash128& chain, const std::string& scope, std::int64_t length, bool boundary,
                 std::int64_t now, std::int64_t visible, std::size_t index);
    std::int64_t match(const model::Request& r, const std::string& scope, std::int64_t now,
                       SimResult& out);
    [[nodiscard]] std::optional<std::size_t>
    deepest_seen(const model::Request& r, const std::string& scope, std::int64_t now) const;
    void persist_units(const model::Request& r, const std::string& scope, std::int64_t now,
                       std::optional<std::size_t> common, std::size_t index);

    std::unordered_map<EntryKey, Unit, EntryKeyHash> m_units;
    std::unordered_map<EntryKey, Seen, EntryKeyHash> m_seen; // every prefix of earlier prompts
    ReplayClock m_clock;
};

} // namespace cachewise::sim
