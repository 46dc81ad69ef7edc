#pragma once

#include "util/hash.hpp"

#include <array>
#include <cstdint>
#include <mutex>
#include <optional>
#include <vector>

namespace cachewise::tokenize {

// Token counts by content hash: every segment of a log that resends its
// history is looked up here, most of them found. A flat open-addressing
// table (one cache line a look-up, where a node-based map follows three
// pointers); it doubles when half full. Content hashes are already uniform,
// so a key's low bits place it.
class CountMemo {
public:
    [[nodiscard]] std::optional<std::int64_t> find(const Hash128& key) const;
    // `count` >= 0; a key already held keeps its count.
    void add(const Hash128& key, std::int64_t count);
    [[nodiscard]] std::size_t size() const { return m_used; }

private:
    struct Slot {
        Hash128 key{};
        std::int64_t count = -1; // -1: empty
    };
    void grow();

    std::vector<Slot> m_slots;
    std::size_t m_used = 0;
};

// A CountMemo that several threads share (the parse workers that count
// exact tokens): a segment one worker counted is not counted again by
// another. In shards, each under its own lock, picked by the key's high
// bits (the low ones place it in the shard), so that workers seldom wait.
class SharedCountMemo {
public:
    [[nodiscard]] std::optional<std::int64_t> find(const Hash128& key) const
    {
        const Shard& s = shard(key);
        const std::lock_guard lock(s.mutex);
        return s.memo.find(key);
    }
    void add(const Hash128& key, std::int64_t count)
    {
        Shard& s = shard(key);
        const std::lock_guard lock(s.mutex);
        s.memo.add(key, count);
    }

private:
    struct Shard {
        mutable std::mutex mutex;
        CountMemo memo;
    };
    static constexpr std::size_t k_shards = 16;
    [[nodiscard]] Shard& shard(const Hash128& key) const { return m_shards[key.high % k_shards]; }

    mutable std::array<Shard, k_shards> m_shards;
};

} // namespace cachewise::tokenize
