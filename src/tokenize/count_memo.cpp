#include "tokenize/count_memo.hpp"

#include <algorithm>

namespace cachewise::tokenize {

std::optional<std::int64_t>
CountMemo::find(const Hash128& key) const
{
    if (m_slots.empty()) {
        return std::nullopt;
    }
    const std::size_t mask = m_slots.size() - 1;
    for (std::size_t slot = key.low & mask; m_slots[slot].count >= 0; slot = (slot + 1) & mask) {
        if (m_slots[slot].key == key) {
            return m_slots[slot].count;
        }
    }
    return std::nullopt;
}

void
CountMemo::add(const Hash128& key, std::int64_t count)
{
    if ((m_used + 1) * 2 > m_slots.size()) {
        grow();
    }
    const std::size_t mask = m_slots.size() - 1;
    std::size_t slot = key.low & mask;
    for (; m_slots[slot].count >= 0; slot = (slot + 1) & mask) {
        if (m_slots[slot].key == key) {
            return;
        }
    }
    m_slots[slot] = {key, count};
    ++m_used;
}

void
CountMemo::grow()
{
    std::vector<Slot> old(std::max<std::size_t>(1024, m_slots.size() * 2));
    old.swap(m_slots);
    m_used = 0;
    for (const auto& s : old) {
        if (s.count >= 0) {
            add(s.key, s.count);
        }
    }
}

} // namespace cachewise::tokenize
