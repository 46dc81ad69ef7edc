#pragma once

#include "sim/prefix_store.hpp"
#include "sim/simulator.hpp"

#include <map>

namespace cachewise::sim {

// Gemini's context caching (rules/providers/gemini.json).
//
// Implicit (Gemini 2.5 and newer, best effort): a prompt of at least the
// model's minimum is cached; a later request reads the longest live prefix
// it shares, in steps of about 2,048 tokens (measured, not documented);
// entries are assumed to live 5 minutes after their last use.
//
// Explicit: a cachedContents.create record makes a named cache that lives
// until its expireTime (or ttl, 1 hour by default); a request naming it in
// cachedContent reads all of it while it lives. A cache created outside the
// log is assumed alive, with the size its usage reports.
class GeminiCache final : public CacheSimulator {
public:
    using CacheSimulator::CacheSimulator;

    SimResult simulate(const model::Request& request, std::size_t index) override;

private:
    struct Explicit {
        std::int64_t tokens = 0;
        std::int64_t created_at = 0;
        std::int64_t expires_at = 0;
        std::size_t creator = 0;
    };
    void create_explicit(const model::Request& r, std::int64_t now, std::size_t index,
                         SimResult& out);
    [[nodiscard]] std::int64_t read_explicit(const model::Request& r, std::int64_t now,
                                             SimResult& out) const;

    PrefixStore m_implicit;
    std::map<std::string, Explicit> m_explicit; // by cache name
    ReplayClock m_clock;
};

} // namespace cachewise::sim
