#include "sim/block_cache.hpp"

#include "util/error.hpp"

#include <algorithm>

namespace cachewise::sim {

BlockCache::BlockCache(const ruleset::ProviderRules& rules, SimOptions options)
    : CacheSimulator(rules, options)
{
    m_block = m_options.block_size.value_or(m_rules.integer("block_size"));
    if (m_block < 1) {
        throw Error("--block-size must be at least 1");
    }
}

BlockCache::LeafKey
BlockCache::leaf_key(std::size_t id) const
{
    const Node& n = m_nodes[id];
    return {n.last_used, -static_cast<std::int64_t>(n.depth), id};
}

bool
BlockCache::is_leaf(std::size_t id) const
{
    return m_nodes[id].alive > 0 && m_nodes[id].live_children == 0;
}

void
BlockCache::unleaf(std::size_t id)
{
    if (is_leaf(id)) {
        m_leaves.erase(leaf_key(id));
    }
}

void
BlockCache::releaf(std::size_t id)
{
    if (is_leaf(id)) {
        m_leaves.insert(leaf_key(id));
    }
}

// Changes a node's cached blocks, keeping the parent's live-child count and
// the leaf set right.
void
BlockCache::set_alive(std::size_t id, std::int64_t alive)
{
    Node& n = m_nodes[id];
    const bool was_live = n.alive > 0;
    unleaf(id);
    m_used += alive - n.alive;
    n.alive = alive;
    const bool live = n.alive > 0;
    if (was_live != live && n.parent != SIZE_MAX) {
        unleaf(n.parent);
        if (live) {
            ++m_nodes[n.parent].live_children;
        } else {
            --m_nodes[n.parent].live_children;
        }
        releaf(n.parent);
    }
    releaf(id);
}

void
BlockCache::evict()
{
    if (!m_options.capacity_blocks) {
        return;
    }
    const std::int64_t capacity = *m_options.capacity_blocks;
    while (m_used > capacity && !m_leaves.empty()) {
        const std::size_t id = std::get<2>(*m_leaves.begin());
        const std::int64_t drop = std::min(m_nodes[id].alive, m_used - capacity);
        set_alive(id, m_nodes[id].alive - drop); // the tail blocks go first
    }
}

// A change inside segment `next` (Request::partial_share): the partner's
// blocks of that segment before the change still match, token for token
// (vLLM hashes full blocks of tokens, SGLang matches the radix tree).
void
BlockCache::read_into_segment(const model::Request& r, const std::string& scope, std::size_t next,
                              std::int64_t& hit, std::int64_t& shared_live) const
{
    const auto& share = r.partial_share;
    if (!share || share->segment != next) {
        return;
    }
    const auto it = m_index.find(EntryKey{share->chain, scope});
    if (it == m_index.end()) {
        return;
    }
    const std::int64_t b = m_block;
    const std::int64_t before = next == 0 ? 0 : r.segments[next - 1].cumulative_tokens;
    const std::int64_t cached = (before / b + m_nodes[it->second].alive) * b;
    shared_live = std::max(shared_live, std::min(share->tokens, cached));
    hit = std::max(hit, std::min(share->tokens, cached) / b * b);
}

SimResult
BlockCache::simulate(const model::Request& r, std::size_t index)
{
    SimResult out;
    const auto& segs = r.segments;
    const std::int64_t total = r.prompt_tokens();
    const std::int64_t b = m_block;
    const std::string scope = scope_of(r);

    // Reuse: whole cached blocks along the shared path.
    std::int64_t hit = 0;         // tokens in reusable blocks
    std::int64_t shared_live = 0; // tokens shared with cached blocks, before rounding
    std::int64_t shared_ever = 0; // tokens shared with anything ever cached
    bool path_alive = true;
    std::size_t matched = 0; // segments whose blocks are all cached, from the start
    for (std::size_t j = 0; j < segs.size(); ++j) {
        const auto it = m_index.find(EntryKey{segs[j].chain, scope});
        if (it == m_index.end()) {
            break;
        }
        const Node& n = m_nodes[it->second];
        const std::int64_t before = j == 0 ? 0 : segs[j - 1].cumulative_tokens;
        shared_ever = segs[j].cumulative_tokens;
        if (!path_alive) {
            continue;
        }
        if (n.alive >= n.blocks) {
            hit = segs[j].cumulative_tokens / b * b;
            shared_live = segs[j].cumulative_tokens;
            out.hit_segment = j;
            out.hit_writer = n.writer;
            matched = j + 1;
        } else {
            // Evicted from its tail: the blocks still cached continue the path.
            hit = (before / b + n.alive) * b;
            shared_live = std::max(shared_live, hit);
            path_alive = false;
        }
    }
    if (path_alive) {
        read_into_segment(r, scope, matched, hit, shared_live);
    }
    if (m_rules.fact("recompute_last_token").value != 0 && total > 0) {
        hit = std::min(hit, (total - 1) / b * b);
    }
    hit = std::max<std::int64_t>(hit, 0);
    out.read = hit;
    out.fresh = total - hit;
    out.lost_to_granularity = std::max<std::int64_t>(0, shared_live - hit);
    out.lost_to_eviction = std::max<std::int64_t>(0, shared_ever - shared_live);
    if (out.lost_to_eviction > 0) {
        Missed m;
        m.reason = MissReason::evicted;
        m.tokens = shared_ever;
        out.missed = m;
    }

    // The request's blocks are now the most recently used.
    ++m_clock;
    std::size_t parent = SIZE_MAX;
    for (std::size_t j = 0; j < segs.size(); ++j) {
        const std::int64_t before = j == 0 ? 0 : segs[j - 1].cumulative_tokens;
        const std::int64_t blocks = segs[j].cumulative_tokens / b - before / b;
        auto [it, fresh] = m_index.try_emplace(EntryKey{segs[j].chain, scope}, m_nodes.size());
        if (fresh) {
            Node n;
            n.parent = parent;
            n.blocks = blocks;
            n.depth = static_cast<std::uint32_t>(j);
            n.writer = index;
            n.last_used = m_clock;
            m_nodes.push_back(n);
        }
        const std::size_t id = it->second;
        unleaf(id);
        m_nodes[id].last_used = m_clock;
        releaf(id);
        set_alive(id, m_nodes[id].blocks);
        parent = id;
    }
    evict();
    return out;
}

} // namespace cachewise::sim
