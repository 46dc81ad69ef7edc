#include "sim/anthropic_cache.hpp"

#include "analysis/rule_catalogue.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace cachewise::sim {

using model::Breakpoint;
using model::Request;
using model::Ttl;

AnthropicCache::AnthropicCache(const ruleset::ProviderRules& rules, SimOptions options)
    : CacheSimulator(rules, options),
      m_refresh_nested(rules.has("read_refreshes_nested_entries") &&
                       rules.fact("read_refreshes_nested_entries").value != 0)
{}

double
AnthropicCache::ttl_seconds(Ttl ttl) const
{
    return m_rules.ttl_seconds(to_string(ttl));
}

std::vector<Breakpoint>
AnthropicCache::effective_breakpoints(const Request& r, bool& assumed)
{
    assumed = !r.breakpoints_logged;
    if (!assumed) {
        return model::breakpoints(r);
    }
    std::vector<Breakpoint> out;
    if (r.segments.empty()) {
        return out;
    }
    // Claude Code marks the end of its system prompt and the latest block;
    // the usage tells which TTL it asked for.
    model::CacheControl cc;
    if (r.usage && r.usage->cache_write_1h.value_or(0) > 0 &&
        r.usage->cache_write_5m.value_or(0) == 0) {
        cc.ttl = Ttl::one_hour;
    }
    if (r.segments.front().kind == model::SegmentKind::unlogged) {
        out.push_back(Breakpoint{0, cc, false});
    }
    if (r.segments.size() > 1 || out.empty()) {
        out.push_back(Breakpoint{r.segments.size() - 1, cc, false});
    }
    return out;
}

// Requests the API rejects with HTTP 400 cache nothing: more breakpoints
// than allowed, or TTLs out of order (rule "Mixing TTLs": longer first).
bool
AnthropicCache::rejected(const Request& r, const std::vector<Breakpoint>& bps, SimResult& out) const
{
    const auto reject = [&](std::string_view rule, std::string reason) {
        out.rejected = true;
        out.reject_rule = rule;
        out.reject_reason = std::move(reason);
        return true;
    };
    if (static_cast<int>(bps.size()) > m_rules.integer("max_breakpoints")) {
        return reject(analysis::rule::k_too_many_breakpoints,
                      fmt::format("{} cache breakpoints{} (the API allows {})", bps.size(),
                                  r.auto_cache_control ? ", the automatic one included" : "",
                                  m_rules.integer("max_breakpoints")));
    }
    for (std::size_t i = 0; i < bps.size(); ++i) {
        for (std::size_t j = i + 1; j < bps.size(); ++j) {
            if (bps[i].segment == bps[j].segment &&
                !(bps[i].cache_control == bps[j].cache_control)) {
                return reject(analysis::rule::k_ttl_order,
                              fmt::format("the automatic cache_control's TTL differs from the "
                                          "marker on the same block ({})",
                                          r.segments[bps[i].segment].path.str()));
            }
            if (bps[i].cache_control.ttl == Ttl::five_minutes &&
                bps[j].cache_control.ttl == Ttl::one_hour) {
                return reject(analysis::rule::k_ttl_order,
                              fmt::format("a 1h breakpoint at {} follows a 5m breakpoint at {}: "
                                          "longer TTLs must come first",
                                          r.segments[bps[j].segment].path.str(),
                                          r.segments[bps[i].segment].path.str()));
            }
        }
    }
    return false;
}

Hash128
AnthropicCache::key_of(const Probe& p, std::size_t segment)
{
    return hash_pair(p.scope, p.request.segments[segment].chain);
}

AnthropicCache::Entry*
AnthropicCache::entry_at(const Probe& p, std::size_t segment)
{
    return m_entries.find(key_of(p, segment));
}

bool
AnthropicCache::alive(const Probe& p, const Entry& e) const
{
    return static_cast<double>(p.t - e.touched_at) <= ttl_seconds(e.ttl) * 1e6;
}

// Reads: each breakpoint looks back at most `lookback_positions` positions,
// itself first; the longest match over all breakpoints wins (rule "The
// lookback window is 20 blocks").
std::optional<std::size_t>
AnthropicCache::find_hit(const Probe& p, const std::vector<Breakpoint>& bps)
{
    const auto& segments = p.request.segments;
    const auto window = static_cast<std::uint32_t>(m_rules.integer("lookback_positions"));
    std::optional<std::size_t> hit;
    for (const auto& bp : bps) {
        const std::uint32_t top = segments[bp.segment].lookback_position;
        const std::uint32_t lowest = top >= window ? top - window + 1 : 1;
        for (std::size_t j = bp.segment + 1; j-- > 0 && segments[j].lookback_position >= lowest;) {
            const Entry* e = entry_at(p, j);
            if (e != nullptr && alive(p, *e) && p.t >= e->visible_at) {
                if (!hit || j > *hit) {
                    hit = j;
                }
                break;
            }
        }
    }
    return hit;
}

// The deepest entry beyond the hit that could not be read, and why.
std::optional<Missed>
AnthropicCache::deepest_miss(const Probe& p, const std::vector<Breakpoint>& bps,
                             std::optional<std::size_t> hit)
{
    const auto& segments = p.request.segments;
    for (std::size_t j = segments.size(); j-- > (hit ? *hit + 1 : 0);) {
        const Entry* e = entry_at(p, j);
        if (e == nullptr) {
            continue;
        }
        Missed m;
        m.segment = j;
        m.tokens = segments[j].cumulative_tokens;
        m.writer = m_writes[e->write].writer;
        m.gap_seconds = static_cast<double>(p.t - e->touched_at) / 1e6;
        m.ttl_seconds = ttl_seconds(e->ttl);
        if (!alive(p, *e)) {
            m.reason = MissReason::expired;
        } else if (p.t < e->visible_at) {
            m.reason = MissReason::concurrent;
        } else {
            m.reason = MissReason::lookback;
            std::uint32_t nearest = UINT32_MAX;
            for (const auto& bp : bps) {
                if (bp.segment >= j) {
                    nearest = std::min(nearest, segments[bp.segment].lookback_position -
                                                    segments[j].lookback_position + 1);
                }
            }
            m.positions_back = nearest == UINT32_MAX ? 0 : nearest;
        }
        return m;
    }
    return std::nullopt;
}

// Writes: one entry per eligible breakpoint beyond the hit.
void
AnthropicCache::write_entries(const Probe& p, const std::vector<const Breakpoint*>& eligible,
                              std::optional<std::size_t> hit, std::size_t index, SimResult& out)
{
    const auto& segments = p.request.segments;
    const std::int64_t visible_from = visible_at(p.request, p.t, m_options);
    for (const Breakpoint* bp : eligible) {
        if (hit && bp->segment <= *hit) {
            continue;
        }
        const auto [entry, fresh_key] = m_entries.try_emplace(key_of(p, bp->segment));
        if (!fresh_key && m_writes[entry->write].reads == 0) {
            m_writes[entry->write].dead = true; // written again before anyone read it
        }
        m_writes.push_back(WriteReport{index, bp->segment, segments[bp->segment].cumulative_tokens,
                                       bp->cache_control.ttl, 0, false});
        *entry = Entry{bp->cache_control.ttl, p.t, visible_from, p.t, m_writes.size() - 1};
        out.written.push_back(bp->segment);
    }
}

namespace {

// Billing (rule "Mixing TTLs"): A = tokens at the hit, B = the last 1h
// breakpoint after A, C = the last breakpoint; read A, 1h write B - A, 5m
// write C - B, the rest is fresh input.
void
bill(const Request& r, const std::vector<const Breakpoint*>& eligible, std::int64_t a,
     SimResult& out)
{
    out.read = a;
    std::int64_t b = a;
    std::int64_t c = a;
    for (const Breakpoint* bp : eligible) {
        const std::int64_t tokens = r.segments[bp->segment].cumulative_tokens;
        if (tokens > a && bp->cache_control.ttl == Ttl::one_hour) {
            b = std::max(b, tokens);
        }
        c = std::max(c, tokens);
    }
    out.write_1h = b - a;
    out.write_5m = c - b;
    out.fresh = r.prompt_tokens() - c;
}

} // namespace

SimResult
AnthropicCache::simulate(const Request& r, std::size_t index)
{
    SimResult out;
    const Probe p{r, hash_bytes(scope_of(r)), m_clock.start(r, m_options)};
    out.breakpoints = effective_breakpoints(r, out.breakpoints_assumed);
    auto& bps = out.breakpoints;
    std::stable_sort(bps.begin(), bps.end(), [](const Breakpoint& a, const Breakpoint& b) {
        return a.segment < b.segment;
    });
    // Always: this cache is written and read only at breakpoints (rule:
    // cache_control breakpoints), so CW011 applies to every request it
    // simulates, also under --policy. The rules' breakpoint_models say which
    // models the analysis expects breakpoints of, not how this cache works.
    out.uses_breakpoints = true;
    if (rejected(r, bps, out)) {
        return out;
    }

    const auto minimum = m_rules.minimum_tokens(r.model);
    out.minimum_tokens = minimum.tokens;
    out.minimum_known =
        minimum.certain(); // second-hand rows are not (rule: minimum cacheable length)
    out.minimum_listed = minimum.known_model;
    std::vector<const Breakpoint*> eligible;
    for (const auto& bp : bps) {
        if (r.segments[bp.segment].cumulative_tokens < minimum.tokens) {
            out.below_minimum.push_back(bp.segment); // "processed without caching"
        } else {
            eligible.push_back(&bp);
        }
    }

    const std::optional<std::size_t> hit = find_hit(p, bps);
    out.missed = deepest_miss(p, bps, hit);
    const std::int64_t a = hit ? r.segments[*hit].cumulative_tokens : 0;
    if (Entry* e = hit ? entry_at(p, *hit) : nullptr; e != nullptr) {
        // "refreshed for no additional cost each time the cached content is used"
        e->touched_at = p.t;
        ++m_writes[e->write].reads;
        out.hit_segment = hit;
        out.hit_writer = m_writes[e->write].writer;
        if (m_refresh_nested) {
            refresh_nested(p, *hit);
        }
    }
    write_entries(p, eligible, hit, index, out);
    bill(r, eligible, a, out);
    return out;
}

// rules fact read_refreshes_nested_entries (measured on Claude Code logs): a
// read of a prefix uses every shorter entry nested in it, and refreshes them.
void
AnthropicCache::refresh_nested(const Probe& p, std::size_t hit)
{
    for (std::size_t j = 0; j < hit; ++j) {
        Entry* e = entry_at(p, j);
        if (e != nullptr && alive(p, *e)) {
            e->touched_at = std::max(e->touched_at, p.t);
        }
    }
}

const std::vector<WriteReport>&
AnthropicCache::writes()
{
    m_entries.for_each([&](const Hash128&, const Entry& e) {
        if (static_cast<double>(m_clock.last_start - e.touched_at) > ttl_seconds(e.ttl) * 1e6) {
            m_writes[e.write].dead = true;
        }
    });
    return m_writes;
}

} // namespace cachewise::sim
