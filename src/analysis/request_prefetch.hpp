#pragma once

#include "analysis/request_store.hpp"
#include "util/bounded_queue.hpp"

#include <cstddef>
#include <exception>
#include <optional>
#include <thread>
#include <vector>

namespace cachewise::analysis {

// The requests of a store, whole and in order, rebuilt on a thread of their
// own a bounded number ahead of the reader. A pass that replays a log (the
// audit's simulation, the analysis) then does its own work while the next
// requests' histories are walked and recounted on another core. With one
// thread (`threads` 1) each request is rebuilt when asked for, as
// RequestStore::get does.
//
// Scope::whole rebuilds everything on that thread: the store must not change
// while it runs. Scope::segments rebuilds only the segments there
// (RequestStore::shared_segments) and makes each head whole on the reader's
// thread, so the reader may put() request i back once next() has given it:
// the analysis pins its counts as it goes.
class RequestPrefetch {
public:
    enum class Scope { whole, segments };

    RequestPrefetch(const RequestStore& store, unsigned threads, Scope scope = Scope::whole);
    ~RequestPrefetch();
    RequestPrefetch(const RequestPrefetch&) = delete;
    RequestPrefetch& operator=(const RequestPrefetch&) = delete;

    // Request `next` of the store, `next` counting from 0 by one each call;
    // call it store.size() times at most. What the rebuilding thread threw is
    // thrown here.
    model::Request next();

private:
    // A request, or (Scope::segments) its segments; nullopt for a request
    // that keeps its own, rebuilt by next().
    struct Rebuilt {
        std::optional<model::Request> whole;
        std::optional<std::vector<model::Segment>> segments;
    };
    void rebuild_all();
    [[nodiscard]] Rebuilt rebuild(std::size_t i) const;

    const RequestStore& m_store;
    Scope m_scope;
    std::size_t m_next = 0;
    BoundedQueue<Rebuilt> m_queue{32};
    std::exception_ptr m_error; // set before m_queue is closed
    std::thread m_thread;       // last: started once the members above exist
};

} // namespace cachewise::analysis
