#pragma once

#include "sim/simulator.hpp"

#include <set>
#include <tuple>
#include <unordered_map>

namespace cachewise::sim {

// The prefix cache of a serving engine (rules/providers/vllm.json,
// sglang.json): "what would vLLM or SGLang have reused on this traffic?"
//
// The KV cache holds blocks of B tokens (vLLM: 16; SGLang: pages of 1). A
// block is identified by its whole prefix (vLLM chains block hashes through
// their parents; SGLang's radix tree is keyed by the token path), so a
// request reuses the blocks of the longest cached prefix it shares, whole
// blocks only, and never its last token, which is recomputed for the logits
// (999 shared tokens at B = 16 -> 992). With a capacity, the least recently
// used blocks are evicted first, the tail of a chain before its head.
//
// cachewise knows prompts as content blocks, not token ids: prefixes are
// matched at content-block boundaries (nothing is credited inside the first
// block that differs), requests are replayed one after another, and only
// prompt tokens are cached (engines also keep the generated ones).
class BlockCache final : public CacheSimulator {
public:
    BlockCache(const ruleset::ProviderRules& rules, SimOptions options);

    SimResult simulate(const model::Request& request, std::size_t index) override;

private:
    // The full blocks whose last token lies in one segment of a cached path.
    struct Node {
        std::size_t parent = SIZE_MAX;
        std::int64_t blocks = 0;
        std::int64_t alive = 0; // the first `alive` blocks are cached
        std::int64_t last_used = 0;
        std::uint32_t live_children = 0;
        std::uint32_t depth = 0;
        std::size_t writer = 0;
    };
    using LeafKey = std::tuple<std::int64_t, std::int64_t, std::size_t>; // LRU, tail first

    [[nodiscard]] LeafKey leaf_key(std::size_t id) const;
    [[nodiscard]] bool is_leaf(std::size_t id) const;
    void unleaf(std::size_t id);
    void releaf(std::size_t id);
    void set_alive(std::size_t id, std::int64_t alive);
    void evict();
    void read_into_segment(const model::Request& r, const std::string& scope, std::size_t next,
                           std::int64_t& hit, std::int64_t& shared_live) const;

    std::int64_t m_block = 16;
    std::vector<Node> m_nodes;
    std::unordered_map<EntryKey, std::size_t, EntryKeyHash> m_index;
    std::set<LeafKey> m_leaves; // nodes with cached blocks and no cached children
    std::int64_t m_used = 0;    // cached blocks
    std::int64_t m_clock = 0;
};

} // namespace cachewise::sim
