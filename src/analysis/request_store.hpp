#pragma once

#include "analysis/packed_segment.hpp"
#include "analysis/request_heads.hpp"
#include "model/request.hpp"
#include "util/flat_map.hpp"
#include "util/stable_vector.hpp"

#include <cstdint>
#include <functional>
#include <unordered_map>
#include <vector>

namespace cachewise::analysis {

// Requests kept as paths in a shared prefix structure. Agent logs resend the
// whole history every turn, so a request that owned its segments made memory
// grow with the square of a conversation's length; here a segment is stored
// once per distinct prefix (a node: its parent and its fields), and a request
// is the node where its prompt ends. Memory grows with the distinct content
// of a log and the number of requests, not with the history each one resends.
//
// Token counts differ between requests that share a prefix (the loader
// scales each request to its own usage), so a request read from the log is
// kept with its counts cleared and recomputed on the way out by the same
// model::assign_tokens; one the analysis has pinned to its partner's counts
// shares its partner's nodes as it is. A request either form cannot give
// back exactly keeps its own segments: what comes out is always what went in.
// A node no path uses any more (the uncounted form of a request once the
// analysis has put its final form) is reused, so the two forms do not add up.
class RequestStore {
public:
    // Appends a request as the loader made it (its counts from assign_tokens).
    void add(const model::Request& request);
    // Replaces request i with its final form (counts pinned by the analysis).
    void put(std::size_t i, const model::Request& request);

    [[nodiscard]] std::size_t size() const { return m_heads.size(); }
    // Request i without its segments: ids, stream, times, usage (made
    // whole: the fields below read one without a copy).
    [[nodiscard]] model::Request head(std::size_t i) const { return m_heads.get(i); }
    [[nodiscard]] const std::string& id(std::size_t i) const { return m_heads.id(i); }
    [[nodiscard]] const std::string& stream(std::size_t i) const { return m_heads.stream(i); }
    [[nodiscard]] const std::string& route(std::size_t i) const { return m_heads.route(i); }
    [[nodiscard]] const std::optional<Timestamp>& started_at(std::size_t i) const
    {
        return m_heads.started_at(i);
    }
    [[nodiscard]] std::optional<model::Usage> usage(std::size_t i) const
    {
        return m_heads.usage(i);
    }
    // Request i whole, its segments rebuilt.
    [[nodiscard]] model::Request get(std::size_t i) const;
    // The segments of request i, as get() gives them, when the structure
    // holds them; false, `out` left as it was, for a request that keeps its
    // own (Form::own). It reads only request i's path and usage, so another
    // thread may call it while put() replaces other requests: the nodes of
    // a path neither move nor change while the path holds them.
    bool shared_segments(std::size_t i, std::vector<model::Segment>& out) const;
    // The chain of every segment of request i, in render order, without
    // copying the request.
    void chains(std::size_t i, std::vector<Hash128>& out) const;
    // Every request whole, in order (for callers that keep them all).
    [[nodiscard]] std::vector<model::Request> all() const;
    // Reorders: position k afterwards holds what position order[k] held.
    void permute(const std::vector<std::size_t>& order);

    // Distinct nodes and requests that keep their own segments (for tests
    // and measurements).
    [[nodiscard]] std::size_t nodes() const { return m_nodes.size() - m_free.size(); }
    [[nodiscard]] std::size_t unshared() const { return m_own.size(); }

private:
    static constexpr std::uint32_t k_none = UINT32_MAX;
    struct Node {
        std::uint32_t parent = k_none;
        std::uint32_t refs = 0;            // children and paths ending here; 0: free
        std::uint32_t last_child = k_none; // the child last interned or found under it
        PackedSegment segment;             // cumulative_tokens is summed on the way out
    };
    enum class Form : std::uint8_t { empty, recount, as_is, own };
    struct Path {
        std::uint32_t leaf = k_none;
        std::uint32_t length = 0; // segments: a rebuild fills them back to front
        Form form = Form::empty;
    };

    // Interns `segments` as they are (the recount form passes them uncounted);
    // each must fit a PackedSegment.
    [[nodiscard]] Path store(const std::vector<model::Segment>& segments, Form form);
    std::uint32_t intern(std::uint32_t parent, const PackedSegment& segment);
    void release(std::uint32_t leaf);
    void rebuild(std::size_t i, std::vector<model::Segment>& out) const;
    void set(std::size_t i, const model::Request& request, bool from_log);

    // Stable: shared_segments() may follow paths on another thread while
    // put() adds nodes (and a vector that doubles holds three times the nodes).
    StableVector<Node> m_nodes;
    std::vector<std::uint32_t> m_free;  // nodes no path uses any more, for reuse
    std::uint32_t m_last_root = k_none; // the first node last interned or found
    FlatMap<std::uint64_t, std::uint32_t, std::hash<std::uint64_t>> m_index; // node key → node
    RequestHeads m_heads;
    std::vector<Path> m_paths;
    std::unordered_map<std::size_t, std::vector<model::Segment>> m_own; // by request
    std::vector<model::Segment> m_scratch; // set()'s recount, kept between calls
};

} // namespace cachewise::analysis
