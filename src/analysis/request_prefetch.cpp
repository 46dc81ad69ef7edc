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
        m_queue.close(true); // a reader that stopped early: what is left is not wanted
        m_thread.join();
    }
}

void
RequestPrefetch::rebuild_all()
{
    try {
        for (std::size_t i = 0; i < m_store.size(); ++i) {
            if (!m_queue.push(m_store.get(i))) {
                return;
            }
        }
    } catch (...) {
        m_error = std::current_exception();
    }
    m_queue.close();
}

model::Request
RequestPrefetch::next()
{
    const std::size_t i = m_next++;
    if (!m_thread.joinable()) {
        return m_store.get(i);
    }
    auto r = m_queue.pop();
    if (r) {
        return std::move(*r);
    }
    if (m_error) {
        std::rethrow_exception(m_error);
    }
    return m_store.get(i); // asked for more than the store holds: as get() answers
}

} // namespace cachewise::analysis
