#include "sim/deepseek_cache.hpp"

#include <algorithm>

namespace cachewise::sim {

bool
DeepSeekCache::alive(std::int64_t touched_at, std::int64_t now) const
{
    return static_cast<double>(now - touched_at) <= m_rules.ttl_seconds("default") * 1e6;
}

void
DeepSeekCache::persist(const Hash128& chain, const std::string& scope, std::int64_t length,
                       bool boundary, std::int64_t now, std::int64_t visible, std::size_t index)
{
    auto [it, fresh] = m_units.try_emplace(EntryKey{chain, scope});
    Unit& u = it->second;
    if (fresh || !alive(u.touched_at, now)) {
        u = Unit{};
        u.visible_at = visible;
        u.writer = index;
    }
    u.touched_at = now;
    if (boundary) {
        u.boundary = true;
    } else {
        u.interval = std::max(u.interval, length);
    }
}

// The longest unit this request fully matches, in tokens; the first unit
// it could not read, and why, goes to out.missed.
std::int64_t
DeepSeekCache::match(const model::Request& r, const std::string& scope, std::int64_t now,
                     SimResult& out)
{
    const auto& segs = r.segments;
    for (std::size_t j = segs.size(); j-- > 0;) {
        const auto it = m_units.find(EntryKey{segs[j].chain, scope});
        if (it == m_units.end()) {
            continue;
        }
        Unit& u = it->second;
        if (!alive(u.touched_at, now) || now < u.visible_at) {
            if (!out.missed) {
                Missed m;
                m.reason = alive(u.touched_at, now) ? MissReason::concurrent : MissReason::expired;
                m.segment = j;
                m.tokens = segs[j].cumulative_tokens;
                m.writer = u.writer;
                m.gap_seconds = static_cast<double>(now - u.touched_at) / 1e6;
                m.ttl_seconds = m_rules.ttl_seconds("default");
                out.missed = m;
            }
            continue;
        }
        u.touched_at = now;
        out.hit_segment = j;
        out.hit_writer = u.writer;
        return u.boundary ? segs[j].cumulative_tokens
                          : std::min(u.interval, segs[j].cumulative_tokens);
    }
    return 0;
}

// The deepest segment an earlier, still alive prompt shared, unit or not.
std::optional<std::size_t>
DeepSeekCache::deepest_seen(const model::Request& r, const std::string& scope,
                            std::int64_t now) const
{
    for (std::size_t j = r.segments.size(); j-- > 0;) {
        const auto it = m_seen.find(EntryKey{r.segments[j].chain, scope});
        if (it != m_seen.end() && alive(it->second.touched_at, now)) {
            return j;
        }
    }
    return std::nullopt;
}

// Units persisted by this request: at the end of its input and output, at
// the prefix it shared, and every `interval` tokens.
void
DeepSeekCache::persist_units(const model::Request& r, const std::string& scope, std::int64_t now,
                             std::optional<std::size_t> common, std::size_t index)
{
    const auto& segs = r.segments;
    const std::int64_t total = r.prompt_tokens();
    const std::int64_t interval =
        m_options.interval_tokens.value_or(m_rules.integer("interval_tokens"));
    // Units are built after the request; a logged end says when.
    const std::int64_t visible =
        r.ended_at ? std::max(now, r.ended_at->micros) : visible_at(r, now, m_options);
    persist(segs.back().chain, scope, total, true, now, visible, index); // end of input
    if (r.continuation) {
        persist(r.continuation->chain, scope, r.continuation->tokens, true, now, visible,
                index); // end of output
    }
    if (common && *common + 1 < segs.size()) {
        persist(segs[*common].chain, scope, segs[*common].cumulative_tokens, true, now, visible,
                index);
    }
    if (interval > 0) {
        // A unit every `interval` tokens, kept by the segment that ends at or
        // after it; of a segment's units the last one counts. The loop runs
        // over segments, never over tokens: a count in a log cannot make it
        // long.
        std::int64_t before = 0;
        for (const auto& s : segs) {
            const std::int64_t last = std::min(s.cumulative_tokens, total) / interval * interval;
            if (last > before && last >= interval) {
                persist(s.chain, scope, last, s.cumulative_tokens == last, now, visible, index);
            }
            before = std::max(before, s.cumulative_tokens);
            if (before >= total) {
                break;
            }
        }
    }
    for (const auto& s : segs) {
        m_seen[EntryKey{s.chain, scope}].touched_at = now;
    }
}

SimResult
DeepSeekCache::simulate(const model::Request& r, std::size_t index)
{
    SimResult out;
    const std::int64_t now = m_clock.start(r, m_options);
    const std::string scope = scope_of(r);
    const std::int64_t unit = m_options.block_size.value_or(m_rules.integer("unit_tokens"));
    const auto minimum = m_rules.minimum_tokens(r.billed_model());
    out.minimum_tokens = minimum.tokens;
    out.minimum_known = minimum.certain();
    out.minimum_listed = minimum.known_model;

    const std::int64_t matched = match(r, scope, now, out);
    if (matched >= minimum.tokens) {
        out.read = matched / unit * unit; // "64 tokens as a storage unit"
    }
    out.fresh = r.prompt_tokens() - out.read;
    if (!r.segments.empty() && r.prompt_tokens() < minimum.tokens) {
        // "content less than 64 tokens will not be cached"
        out.below_minimum.push_back(r.segments.size() - 1);
    }

    // What an earlier prompt shared, unit or not: the part no unit covered
    // (or that unit rounding dropped) is lost to DeepSeek's granularity.
    const std::optional<std::size_t> common = deepest_seen(r, scope, now);
    const std::int64_t shared = common ? r.segments[*common].cumulative_tokens : 0;
    out.lost_to_granularity = std::max<std::int64_t>(0, shared - out.read);
    if (!r.segments.empty()) {
        persist_units(r, scope, now, common, index);
    }
    return out;
}

} // namespace cachewise::sim
