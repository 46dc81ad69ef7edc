#include "sim/prefix_store.hpp"

namespace cachewise::sim {

PrefixStore::Lookup
PrefixStore::lookup(const model::Request& r, const std::string& scope, std::int64_t now) const
{
    Lookup out;
    for (std::size_t j = r.segments.size(); j-- > 0;) {
        const auto it = m_entries.find(EntryKey{r.segments[j].chain, scope});
        if (it == m_entries.end()) {
            continue;
        }
        const Entry& e = it->second;
        const double idle = static_cast<double>(now - e.touched_at) / 1e6;
        const double age = static_cast<double>(now - e.written_at) / 1e6;
        const bool alive = idle <= e.lifetime.idle_seconds &&
                           (e.lifetime.max_seconds <= 0 || age <= e.lifetime.max_seconds);
        if (alive && now >= e.visible_at) {
            out.hit = j;
            out.writer = e.writer;
            return out;
        }
        if (!out.missed) {
            Missed m;
            m.reason = alive ? MissReason::concurrent : MissReason::expired;
            m.segment = j;
            m.tokens = r.segments[j].cumulative_tokens;
            m.writer = e.writer;
            m.gap_seconds = idle;
            m.ttl_seconds = e.lifetime.idle_seconds;
            out.missed = m;
        }
    }
    return out;
}

void
PrefixStore::insert(const model::Request& r, const std::string& scope, std::int64_t now,
                    std::int64_t visible, Lifetime lifetime, std::size_t index)
{
    for (const auto& s : r.segments) {
        auto [it, fresh] = m_entries.try_emplace(EntryKey{s.chain, scope});
        Entry& e = it->second;
        const double idle = static_cast<double>(now - e.touched_at) / 1e6;
        const double age = static_cast<double>(now - e.written_at) / 1e6;
        const bool alive = !fresh && idle <= e.lifetime.idle_seconds &&
                           (e.lifetime.max_seconds <= 0 || age <= e.lifetime.max_seconds);
        if (alive) {
            e.touched_at = now; // a read refreshes the entry
            continue;
        }
        e = Entry{now, now, visible, lifetime, index};
    }
}

} // namespace cachewise::sim
