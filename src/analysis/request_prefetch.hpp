#pragma once

#include "analysis/request_store.hpp"
#include "util/bounded_queue.hpp"

#include <cstddef>
#include <exception>
#include <thread>

namespace cachewise::analysis {

// The requests of a store, whole and in order, rebuilt on a thread of their
// own a bounded number ahead of the reader. A pass that replays a log (the
// audit's simulation) then does its own work while the next requests'
// histories are walked and recounted on another core. With one thread
// (`threads` 1) each request is rebuilt when asked for, as
// RequestStore::get does. The store must not change while this reads it.
class RequestPrefetch {
public:
    RequestPrefetch(const RequestStore& store, unsigned threads);
    ~RequestPrefetch();
    RequestPrefetch(const RequestPrefetch&) = delete;
    RequestPrefetch& operator=(const RequestPrefetch&) = delete;

    // Request `next` of the store, `next` counting from 0 by one each call;
    // call it store.size() times at most. What the rebuilding thread threw is
    // thrown here.
    model::Request next();

private:
    void rebuild_all();

    const RequestStore& m_store;
    std::size_t m_next = 0;
    BoundedQueue<model::Request> m_queue{32};
    std::exception_ptr m_error; // set before m_queue is closed
    std::thread m_thread;       // last: started once the members above exist
};

} // namespace cachewise::analysis
