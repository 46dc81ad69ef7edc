#include "sim/openai_cache.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace cachewise::sim {

using model::Breakpoint;

SimResult
OpenAICache::simulate(const model::Request& r, std::size_t index)
{
    const std::int64_t now = m_clock.start(r, m_options);
    // prompt_cache_key "is combined with the prefix hash" for routing.
    const std::string scope = scope_of(r) + '\x1e' + r.cache_key;
    if (m_rules.uses_breakpoints(r.billed_model())) {
        return breakpoints(r, index, now, scope);
    }
    return automatic(r, index, now, scope);
}

SimResult
OpenAICache::automatic(const model::Request& r, std::size_t index, std::int64_t now,
                       const std::string& scope)
{
    SimResult out;
    const auto minimum = m_rules.minimum_tokens(r.billed_model());
    out.minimum_tokens = minimum.tokens;
    out.minimum_known = minimum.certain();
    out.minimum_listed = minimum.known_model;
    const std::int64_t total = r.prompt_tokens();
    const std::int64_t step = m_rules.integer("hit_step_tokens");

    const auto found = m_automatic.lookup(r, scope, now);
    out.missed = found.missed;
    std::int64_t shared = found.hit ? r.segments[*found.hit].cumulative_tokens : 0;
    shared = std::max(shared, found.partial_tokens.value_or(0)); // rule: longest prefix, any token
    if (total >= minimum.tokens && shared >= minimum.tokens) {
        // "cache hits occurring in increments of 128 tokens": 1024, 1152, ...
        out.read = shared / step * step;
        out.hit_segment = found.hit;
        out.hit_writer = found.writer;
    }
    out.lost_to_granularity = shared - out.read;
    out.fresh = total - out.read;
    if (total >= minimum.tokens) {
        const bool day = r.retention == "24h";
        const PrefixStore::Lifetime lifetime{m_rules.ttl_seconds(day ? "24h" : "in_memory"),
                                             day ? m_rules.ttl_seconds("24h")
                                                 : m_rules.ttl_seconds("in_memory_max")};
        m_automatic.insert(r, scope, now, visible_at(r, now, m_options), lifetime, index);
    } else if (!r.segments.empty()) {
        out.below_minimum.push_back(r.segments.size() - 1);
    }
    return out;
}

// The breakpoints a GPT-5.6+ request writes: in explicit mode its latest
// marked ones ("without breakpoints in explicit mode nothing is cached");
// in implicit mode the end of the latest message plus the latest marked ones.
std::vector<std::size_t>
OpenAICache::chosen_breakpoints(const model::Request& r,
                                const std::vector<std::size_t>& marked) const
{
    const auto limit = static_cast<std::size_t>(m_rules.integer("max_breakpoints"));
    std::vector<std::size_t> bps;
    if (r.explicit_mode) {
        const std::size_t from = marked.size() > limit ? marked.size() - limit : 0;
        bps.assign(marked.begin() + static_cast<std::ptrdiff_t>(from), marked.end());
        return bps;
    }
    const std::size_t last = r.segments.size() - 1;
    std::vector<std::size_t> others = marked;
    others.erase(std::remove(others.begin(), others.end(), last), others.end());
    const std::size_t keep = limit - 1;
    const std::size_t from = others.size() > keep ? others.size() - keep : 0;
    bps.assign(others.begin() + static_cast<std::ptrdiff_t>(from), others.end());
    bps.push_back(last);
    return bps;
}

// Reads: the deepest prefix that matches one of the latest breakpoints
// written in this cache ("up to the latest 80 ... without a content-block
// lookback limit").
void
OpenAICache::read_breakpoint(const model::Request& r, std::int64_t now, const std::string& scope,
                             SimResult& out)
{
    const auto considered = static_cast<std::uint64_t>(m_rules.integer("considered_breakpoints"));
    const std::uint64_t newest = m_sequence[scope];
    const double ttl = m_rules.ttl_seconds("30m");
    for (std::size_t j = r.segments.size(); j-- > 0;) {
        const auto it = m_entries.find(EntryKey{r.segments[j].chain, scope});
        if (it == m_entries.end()) {
            continue;
        }
        Entry& e = it->second;
        const double idle = static_cast<double>(now - e.touched_at) / 1e6;
        const bool recent = newest - e.sequence < considered;
        if (idle <= ttl && recent && now >= e.visible_at) {
            out.hit_segment = j;
            out.hit_writer = m_writes[e.write].writer;
            e.touched_at = now; // "30 minutes after its most recent write or reuse"
            ++m_writes[e.write].reads;
            break;
        }
        if (!out.missed) {
            Missed m;
            m.reason = idle > ttl || !recent ? MissReason::expired : MissReason::concurrent;
            m.segment = j;
            m.tokens = r.segments[j].cumulative_tokens;
            m.writer = m_writes[e.write].writer;
            m.gap_seconds = idle;
            m.ttl_seconds = ttl;
            out.missed = m;
        }
    }
    out.read = out.hit_segment ? r.segments[*out.hit_segment].cumulative_tokens : 0;
}

// Writes: each breakpoint beyond the hit whose prefix reaches the minimum.
// Returns the deepest prefix written (or read).
std::int64_t
OpenAICache::write_breakpoints(const model::Request& r, const std::vector<std::size_t>& bps,
                               std::size_t index, std::int64_t now, const std::string& scope,
                               SimResult& out)
{
    std::int64_t deepest = out.read;
    const std::int64_t visible = visible_at(r, now, m_options);
    for (const auto b : bps) {
        const std::int64_t tokens = r.segments[b].cumulative_tokens;
        if (tokens < out.minimum_tokens) {
            out.below_minimum.push_back(b);
            continue;
        }
        if (out.hit_segment && b <= *out.hit_segment) {
            continue;
        }
        auto [it, fresh] = m_entries.try_emplace(EntryKey{r.segments[b].chain, scope});
        if (!fresh && m_writes[it->second.write].reads == 0) {
            m_writes[it->second.write].dead = true;
        }
        m_writes.push_back(WriteReport{index, b, tokens, model::Ttl::five_minutes, 0, false});
        it->second = Entry{now, visible, ++m_sequence[scope], m_writes.size() - 1};
        out.written.push_back(b);
        deepest = std::max(deepest, tokens);
    }
    return deepest;
}

SimResult
OpenAICache::breakpoints(const model::Request& r, std::size_t index, std::int64_t now,
                         const std::string& scope)
{
    SimResult out;
    out.uses_breakpoints = true;
    const auto minimum = m_rules.minimum_tokens(r.billed_model());
    out.minimum_tokens = minimum.tokens;
    out.minimum_known = minimum.certain();
    out.minimum_listed = minimum.known_model;
    if (r.segments.empty()) {
        return out;
    }
    std::vector<std::size_t> marked;
    for (std::size_t i = 0; i < r.segments.size(); ++i) {
        if (r.segments[i].cache_control) {
            marked.push_back(i);
        }
    }
    const auto bps = chosen_breakpoints(r, marked);
    for (const auto b : bps) {
        out.breakpoints.push_back(Breakpoint{b, model::CacheControl{}, false});
    }
    read_breakpoint(r, now, scope, out);
    const std::int64_t deepest = write_breakpoints(r, bps, index, now, scope, out);
    out.write_5m = deepest - out.read;
    out.fresh = r.prompt_tokens() - deepest;
    if (r.explicit_mode && marked.empty()) {
        out.notes.emplace_back("explicit cache mode without a prompt_cache_breakpoint: nothing is "
                               "cached");
    }
    return out;
}

const std::vector<WriteReport>&
OpenAICache::writes()
{
    const double ttl = m_rules.ttl_seconds("30m");
    for (const auto& [key, e] : m_entries) {
        if (static_cast<double>(m_clock.last_start - e.touched_at) > ttl * 1e6) {
            m_writes[e.write].dead = true;
        }
    }
    return m_writes;
}

} // namespace cachewise::sim
