#include "sim/gemini_cache.hpp"

#include "util/format.hpp"
#include "util/time.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace cachewise::sim {

// cachedContents.create: the content is processed once and kept.
void
GeminiCache::create_explicit(const model::Request& r, std::int64_t now, std::size_t index,
                             SimResult& out)
{
    const std::int64_t total = r.prompt_tokens();
    const auto& c = *r.cache_create;
    const double ttl = c.ttl_seconds.value_or(m_rules.ttl_seconds("explicit_default"));
    const std::int64_t expires =
        c.expire_time ? c.expire_time->micros : now + static_cast<std::int64_t>(ttl * 1e6);
    const std::string name = c.name.empty() ? r.id : c.name;
    m_explicit[name] = Explicit{total, now, expires, index};
    out.fresh = total;
    out.notes.push_back(fmt::format("creates the explicit cache {} ({} tokens) until {}", name,
                                    group_digits(total), format_rfc3339(Timestamp{expires})));
}

// The tokens read from the explicit cache a request names (0 when none).
std::int64_t
GeminiCache::read_explicit(const model::Request& r, std::int64_t now, SimResult& out) const
{
    if (r.cached_content.empty()) {
        return 0;
    }
    const std::int64_t total = r.prompt_tokens();
    std::int64_t explicit_read = 0;
    const auto it = m_explicit.find(r.cached_content);
    if (it == m_explicit.end()) {
        // Created outside the log (or before --since): its size is that
        // of the leading segments that stand for it, inferred from usage.
        for (const auto& seg : r.segments) {
            if (seg.kind != model::SegmentKind::unlogged && !seg.path.cached) {
                break;
            }
            explicit_read = seg.cumulative_tokens;
        }
        out.notes.push_back(fmt::format("the explicit cache {} was created outside the log: "
                                        "assumed alive",
                                        r.cached_content));
    } else if (now <= it->second.expires_at) {
        explicit_read = std::min(it->second.tokens, total);
        out.hit_writer = it->second.creator;
        out.hit_segment = 0;
    } else {
        Missed m;
        m.reason = MissReason::expired;
        m.tokens = it->second.tokens;
        m.writer = it->second.creator;
        m.gap_seconds = static_cast<double>(now - it->second.created_at) / 1e6;
        m.ttl_seconds = static_cast<double>(it->second.expires_at - it->second.created_at) / 1e6;
        out.missed = m;
        out.notes.push_back(fmt::format("the explicit cache {} expired at {}: the API rejects "
                                        "a request that names it",
                                        r.cached_content,
                                        format_rfc3339(Timestamp{it->second.expires_at})));
    }
    return explicit_read;
}

SimResult
GeminiCache::simulate(const model::Request& r, std::size_t index)
{
    SimResult out;
    const std::int64_t now = m_clock.start(r, m_options);
    const std::string scope = scope_of(r);
    const std::int64_t total = r.prompt_tokens();
    const auto minimum = m_rules.minimum_tokens(r.billed_model());
    out.minimum_tokens = minimum.tokens;
    out.minimum_known = minimum.certain();
    out.minimum_listed = minimum.known_model;
    if (r.cache_create) {
        create_explicit(r, now, index, out);
        return out;
    }
    const std::int64_t explicit_read = read_explicit(r, now, out);

    // Implicit caching, in steps.
    const std::int64_t step = m_rules.integer("hit_step_tokens");
    const auto found = m_implicit.lookup(r, scope, now);
    if (!out.missed && explicit_read == 0) {
        out.missed = found.missed;
    }
    const std::int64_t shared =
        std::max(found.hit ? r.segments[*found.hit].cumulative_tokens : 0,
                 found.partial_tokens.value_or(0)); // implicit: the longest prefix, any token
    std::int64_t implicit_read = 0;
    if (total >= minimum.tokens) {
        implicit_read = shared / step * step;
        m_implicit.insert(r, scope, now, visible_at(r, now, m_options),
                          PrefixStore::Lifetime{m_rules.ttl_seconds("implicit"), 0}, index);
    } else if (!r.segments.empty()) {
        out.below_minimum.push_back(r.segments.size() - 1);
    }
    if (implicit_read > explicit_read && found.hit) {
        out.hit_segment = found.hit;
        out.hit_writer = found.writer;
    }
    out.read = std::max(explicit_read, implicit_read);
    out.lost_to_granularity = std::max<std::int64_t>(0, shared - out.read);
    out.fresh = total - out.read;
    return out;
}

} // namespace cachewise::sim
