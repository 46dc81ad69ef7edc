#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <utility>
#include <vector>

namespace cachewise {

// A hash map in one flat array (open addressing, linear probing, backward
// shift on erase), for the per-segment tables of the analysis: keys are
// already hashes, so a probe is one multiply and, usually, one cache line,
// where std::unordered_map allocates a node per entry and chases a pointer
// per lookup. Iteration follows the slots, so it is deterministic for one
// sequence of inserts and erases. A pointer into the map stays valid until
// the next insert that grows it or the next erase.
//
// It grows by half, not double: the slot count is any number (a key's home
// slot is its hash scaled to it, not masked), so a table just past a growth
// is 1.5 times, not 2 times, what it was, and a growth holds 2.5 times the
// old slots, not 3. At the end of a 10 GB Claude Code folder the analysis'
// two largest tables hold 3.1 million prefixes each: 4.6 million slots
// instead of 8.4 (see bench/README.md).
template <typename Key, typename Value, typename Hasher> class FlatMap {
public:
    [[nodiscard]] std::size_t size() const { return m_size; }
    // Slots: a pointer into the map outlives an insert that leaves this as it was.
    [[nodiscard]] std::size_t slots() const { return m_slots.size(); }

    [[nodiscard]] Value* find(const Key& key)
    {
        const std::size_t at = slot_of(key);
        return at == k_missing ? nullptr : &m_slots[at].second;
    }
    [[nodiscard]] const Value* find(const Key& key) const
    {
        const std::size_t at = slot_of(key);
        return at == k_missing ? nullptr : &m_slots[at].second;
    }

    // The value of `key`, which must be there (std::out_of_range otherwise).
    [[nodiscard]] Value& at(const Key& key)
    {
        return const_cast<Value&>(std::as_const(*this).at(key));
    }
    [[nodiscard]] const Value& at(const Key& key) const
    {
        const Value* found = find(key);
        if (found == nullptr) {
            throw std::out_of_range("FlatMap::at: no such key");
        }
        return *found;
    }

    // The value of `key`, value-initialised when it is new; whether it is.
    std::pair<Value*, bool> try_emplace(const Key& key)
    {
        if ((m_size + 1) * 10 > m_slots.size() * 7) { // at most 70% full
            grow();
        }
        std::size_t at = home(key);
        while (m_used[at] != 0) {
            if (m_slots[at].first == key) {
                return {&m_slots[at].second, false};
            }
            at = next(at);
        }
        m_used[at] = 1;
        m_slots[at] = {key, Value{}};
        ++m_size;
        return {&m_slots[at].second, true};
    }

    Value& operator[](const Key& key) { return *try_emplace(key).first; }

    // Removes `key`; later entries of its probe run move back into the gap,
    // so lookups never need tombstones.
    bool erase(const Key& key)
    {
        std::size_t gap = slot_of(key);
        if (gap == k_missing) {
            return false;
        }
        for (std::size_t at = next(gap); m_used[at] != 0; at = next(at)) {
            const std::size_t wanted = home(m_slots[at].first);
            // The entry at `at` may fill the gap when its home is not in (gap, at].
            if (distance(wanted, at) >= distance(gap, at)) {
                m_slots[gap] = std::move(m_slots[at]);
                gap = at;
            }
        }
        m_used[gap] = 0;
        m_slots[gap] = {};
        --m_size;
        return true;
    }

    void clear()
    {
        m_slots.clear();
        m_used.clear();
        m_size = 0;
    }

    // Calls f(key, value) for every entry, in slot order.
    template <typename F> void for_each(F&& f) const
    {
        for (std::size_t at = 0; at < m_slots.size(); ++at) {
            if (m_used[at] != 0) {
                f(m_slots[at].first, m_slots[at].second);
            }
        }
    }

private:
    static constexpr std::size_t k_missing = SIZE_MAX;

    [[nodiscard]] std::size_t home(const Key& key) const
    {
        // Fibonacci hashing spreads whatever bits the hasher leaves; the
        // product's top bits, scaled to the slot count, pick the slot.
        const std::uint64_t h = static_cast<std::uint64_t>(Hasher{}(key)) * 0x9E3779B97F4A7C15ULL;
        __extension__ using U128 = unsigned __int128; // GCC and Clang; -Wpedantic knows it
        return static_cast<std::size_t>((static_cast<U128>(h) * m_slots.size()) >> 64);
    }
    [[nodiscard]] std::size_t next(std::size_t at) const
    {
        return at + 1 == m_slots.size() ? 0 : at + 1;
    }
    // Steps from `from` forward to `to`, wrapping at the end.
    [[nodiscard]] std::size_t distance(std::size_t from, std::size_t to) const
    {
        return to >= from ? to - from : to + m_slots.size() - from;
    }

    [[nodiscard]] std::size_t slot_of(const Key& key) const
    {
        if (m_size == 0) {
            return k_missing;
        }
        for (std::size_t at = home(key); m_used[at] != 0; at = next(at)) {
            if (m_slots[at].first == key) {
                return at;
            }
        }
        return k_missing;
    }

    void grow()
    {
        const std::size_t n = m_slots.empty() ? 16 : m_slots.size() + m_slots.size() / 2;
        std::vector<std::pair<Key, Value>> slots(n);
        std::vector<std::uint8_t> used(n, 0);
        std::swap(slots, m_slots);
        std::swap(used, m_used);
        for (std::size_t at = 0; at < slots.size(); ++at) {
            if (used[at] == 0) {
                continue;
            }
            std::size_t to = home(slots[at].first);
            while (m_used[to] != 0) {
                to = next(to);
            }
            m_used[to] = 1;
            m_slots[to] = std::move(slots[at]);
        }
    }

    std::vector<std::pair<Key, Value>> m_slots;
    std::vector<std::uint8_t> m_used;
    std::size_t m_size = 0;
};

} // namespace cachewise
