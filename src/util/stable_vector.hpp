#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <vector>

namespace cachewise {

// A vector whose elements never move: chunks of 2^ChunkBits elements behind
// a table of chunks whose room, for 2^32 elements, is reserved at the first
// append (address space only: its pages are touched as chunks are added).
// So an append moves neither an element nor the table, and one thread may
// append while others read elements that were there before they started
// (analysis::RequestPrefetch rebuilds later requests while the analysis
// interns nodes). A std::deque reallocates its table as it grows.
template <typename T, unsigned ChunkBits = 12> class StableVector {
public:
    static constexpr std::size_t k_chunk = std::size_t{1} << ChunkBits;
    static constexpr std::size_t k_max_size = std::size_t{1} << 32;

    [[nodiscard]] std::size_t size() const { return m_size; }

    [[nodiscard]] T& operator[](std::size_t i)
    {
        return m_chunks[i >> ChunkBits][i & (k_chunk - 1)];
    }
    [[nodiscard]] const T& operator[](std::size_t i) const
    {
        return m_chunks[i >> ChunkBits][i & (k_chunk - 1)];
    }

    // A value-initialised element at the end.
    T& emplace_back()
    {
        if (m_size == k_max_size) {
            throw std::length_error("StableVector: more than 2^32 elements");
        }
        if (m_chunks.capacity() == 0) {
            m_chunks.reserve(k_max_size >> ChunkBits);
        }
        if ((m_size & (k_chunk - 1)) == 0) {
            m_chunks.push_back(std::make_unique<T[]>(k_chunk));
        }
        T& added = (*this)[m_size];
        ++m_size;
        return added;
    }

private:
    std::vector<std::unique_ptr<T[]>> m_chunks; // never reallocated: reserved whole
    std::size_t m_size = 0;
};

} // namespace cachewise
