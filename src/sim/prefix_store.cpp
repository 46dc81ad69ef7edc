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
        if (readable(e, now)) {
            out.hit = j;
            out.writer = e.writer;
            out.partial_tokens = partial(r, scope, now, j + 1);
            return out;
        }
        const double idle = static_cast<double>(now - e.touched_at) / 1e6;
        const bool alive = live(e, now);
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
    out.partial_tokens = partial(r, scope, now, 0);
    return out;
}

bool
PrefixStore::live(const Entry& e, std::int64_t now)
{
    const double idle = static_cast<double>(now - e.touched_at) / 1e6;
    const double age = static_cast<double>(now - e.written_at) / 1e6;
    return idle <= e.lifetime.idle_seconds &&
           (e.lifetime.max_seconds <= 0 || age <= e.lifetime.max_seconds);
}

bool
PrefixStore::readable(const Entry& e, std::int64_t now)
{
    return live(e, now) && now >= e.visible_at;
}

std::optional<std::int64_t>
PrefixStore::partial(const model::Request& r, const std::string& scope, std::int64_t now,
                     std::size_t next) const
{
    const auto& share = r.partial_share;
    if (!share || share->segment != next) {
        return std::nullopt;
    }
    const auto it = m_entries.find(EntryKey{share->chain, scope});
    if (it == m_entries.end() || !readable(it->second, now)) {
        return std::nullopt;
    }
    return share->tokens;
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
