#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <optional>
#include <utility>

namespace cachewise {

// A queue between one thread that produces and one that consumes, holding
// at most `capacity` items so that memory stays flat: push() waits for room,
// pop() for an item. close() ends it: pushes are refused, pops drain what
// is queued (or nothing, with `drop`) and then find it empty. Errors are the
// users' to carry (an exception_ptr set before close()).
template <typename T> class BoundedQueue {
public:
    explicit BoundedQueue(std::size_t capacity) : m_capacity(capacity) {}

    // False, and `item` dropped, once closed.
    bool push(T&& item)
    {
        std::unique_lock lock(m_mutex);
        m_space.wait(lock, [&] { return m_closed || m_items.size() < m_capacity; });
        if (m_closed) {
            return false;
        }
        m_items.push_back(std::move(item));
        lock.unlock();
        m_ready.notify_one();
        return true;
    }

    // The next item; nullopt once closed and empty.
    std::optional<T> pop()
    {
        std::unique_lock lock(m_mutex);
        m_ready.wait(lock, [&] { return m_closed || !m_items.empty(); });
        if (m_items.empty()) {
            return std::nullopt;
        }
        std::optional<T> item(std::move(m_items.front()));
        m_items.pop_front();
        // A producer that found the queue full is woken once it is half
        // empty, not at every item: when the producer is the faster (a
        // prefetch ahead of the analysis), a wake-up per item cost a tenth
        // of the reader's time in futex calls.
        const bool room = m_items.size() <= m_capacity / 2;
        lock.unlock();
        if (room) {
            m_space.notify_one();
        }
        return item;
    }

    void close(bool drop = false)
    {
        {
            const std::lock_guard lock(m_mutex);
            m_closed = true;
            if (drop) {
                m_items.clear();
            }
        }
        m_ready.notify_all();
        m_space.notify_all();
    }

private:
    std::size_t m_capacity;
    std::mutex m_mutex;
    std::condition_variable m_ready; // an item, or closed
    std::condition_variable m_space; // room, or closed
    std::deque<T> m_items;
    bool m_closed = false;
};

} // namespace cachewise
