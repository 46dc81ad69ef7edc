#pragma once

#include "util/hash.hpp"

#include <cstdint>
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

} // namespace cachewise::tokenize
