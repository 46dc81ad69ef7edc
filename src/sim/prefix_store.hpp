#pragma once

#include "sim/simulator.hpp"

#include <unordered_map>

namespace cachewise::sim {

// The entries of an automatic prefix cache, keyed by segment boundaries:
// every prefix of a cached prompt is an entry, and a later request reads
// the longest one it shares that is alive and visible. Shared by OpenAI's
// caching before GPT-5.6 and Gemini's implicit caching, which differ only
// in their minimums, steps and lifetimes.
class PrefixStore {
public:
    struct Lifetime {
        double idle_seconds = 0; // since the last write or read
        double max_seconds = 0;  // since the write; 0 = no limit
    };
    struct Lookup {
        std::optional<std::size_t> hit; // deepest live, visible segment boundary
        std::size_t writer = 0;         // the request that wrote it
        std::optional<Missed> missed;   // a deeper boundary that had expired or was not visible
        // Tokens shared into the segment after `hit`, from the partner's live
        // entry for it (Request::partial_share), for caches that read any prefix.
        std::optional<std::int64_t> partial_tokens;
    };

    // The longest cached prefix of `request` in `scope` at time `now` (micros).
    [[nodiscard]] Lookup lookup(const model::Request& request, const std::string& scope,
                                std::int64_t now) const;

    // Caches every prefix of `request` (or refreshes it), visible from `visible`.
    void insert(const model::Request& request, const std::string& scope, std::int64_t now,
                std::int64_t visible, Lifetime lifetime, std::size_t index);

private:
    struct Entry {
        std::int64_t written_at = 0;
        std::int64_t touched_at = 0;
        std::int64_t visible_at = 0;
        Lifetime lifetime;
        std::size_t writer = 0;
    };
    static bool live(const Entry& e, std::int64_t now);     // within its idle and max lifetime
    static bool readable(const Entry& e, std::int64_t now); // live and visible
    [[nodiscard]] std::optional<std::int64_t> partial(const model::Request& r,
                                                      const std::string& scope, std::int64_t now,
                                                      std::size_t next) const;

    std::unordered_map<EntryKey, Entry, EntryKeyHash> m_entries;
};

} // namespace cachewise::sim
