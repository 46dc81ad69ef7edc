#include "analysis/request_prefetch.hpp"

#include <system_error>

namespace cachewise::analysis {

RequestPrefetch::RequestPrefetch(const RequestStore& store, unsigned threads) : m_store(store)
{
    if (threads > 1 && store.size() > 1) {
        try {
            m_thread = std::thread([this] { rebuild_all(); });
        } catch (const std::system_error&) {
            // No thread to be had (a process limit): each request is rebuilt
            // when asked for, as with one thread.
        }
    }
}

RequestPrefetch::~RequestPrefetch()
{
    if (m_thread.joinable()) {
        {
            const std::lock_guard lock(m_mutex);
            m_stopping = true;
        }
        m_space.notify_all();
        m_thread.join();
    }
}

void
RequestPrefetch::rebuild_all()
{
    try {
        for (std::size_t i = 0; i < m_store.size(); ++i) {
            model::Request r = m_store.get(i);
            std::unique_lock lock(m_mutex);
            m_space.wait(lock, [this] { return m_stopping || m_queue.size() < k_ahead; });
            if (m_stopping) {
                return;
            }
            m_queue.push_back(std::move(r));
            lock.unlock();
            m_ready.notify_one();
        }
    } catch (...) {
        const std::lock_guard lock(m_mutex);
        m_error = std::current_exception();
    }
    m_ready.notify_one();
}

model::Request
RequestPrefetch::next()
{
    const std::size_t i = m_next++;
    if (!m_thread.joinable()) {
        return m_store.get(i);
    }
    std::unique_lock lock(m_mutex);
    m_ready.wait(lock, [this] { return !m_queue.empty() || m_error; });
    if (m_queue.empty()) {
        std::rethrow_exception(m_error);
    }
    model::Request r = std::move(m_queue.front());
    m_queue.pop_front();
    lock.unlock();
    m_space.notify_one();
    return r;
}

} // namespace cachewise::analysis
