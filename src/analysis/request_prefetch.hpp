#pragma once

#include "analysis/request_store.hpp"

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <mutex>
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
    static constexpr std::size_t k_ahead = 32;
    void rebuild_all();

    const RequestStore& m_store;
    std::size_t m_next = 0;
    std::mutex m_mutex;
    std::condition_variable m_ready;
    std::condition_variable m_space;
    std::deque<model::Request> m_queue;
    std::exception_ptr m_error;
    bool m_stopping = false;
    std::thread m_thread; // last: started once the members above exist
};

} // namespace cachewise::analysis
