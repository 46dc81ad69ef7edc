#include "analysis/request_prefetch.hpp"

#include <system_error>

namespace cachewise::analysis {

RequestPrefetch::RequestPrefetch(const RequestStore& store, unsigned threads, Scope scope)
    : m_store(store), m_scope(scope)
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

RequestPrefetch::Rebuilt
RequestPrefetch::rebuild(std::size_t i) const
{
    Rebuilt out;
    if (m_scope == Scope::whole) {
        out.whole = m_store.get(i);
    } else if (std::vector<model::Segment> segments; m_store.shared_segments(i, segments)) {
        out.segments = std::move(segments);
    }
    return out;
}

void
RequestPrefetch::rebuild_all()
{
    try {
        for (std::size_t i = 0; i < m_store.size(); ++i) {
            if (!m_queue.push(rebuild(i))) {
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
    auto rebuilt = m_queue.pop();
    if (!rebuilt) {
        if (m_error) {
            std::rethrow_exception(m_error);
        }
        return m_store.get(i); // asked for more than the store holds: as get() answers
    }
    if (rebuilt->whole) {
        return std::move(*rebuilt->whole);
    }
    if (!rebuilt->segments) {
        return m_store.get(i); // keeps its own segments: rebuilt here
    }
    model::Request r = m_store.head(i);
    r.segments = std::move(*rebuilt->segments);
    return r;
}

} // namespace cachewise::analysis
