#include "analysis/request_store.hpp"

#include "model/tokens.hpp"

#include <algorithm>

namespace cachewise::analysis {

using model::Request;
using model::Segment;

namespace {

std::uint64_t
mix(std::uint64_t h, std::uint64_t v)
{
    h = (h ^ v) * 0x9E3779B97F4A7C15ULL;
    return h ^ (h >> 29);
}

std::uint64_t
key_of(std::uint32_t parent, const PackedSegment& s)
{
    std::uint64_t h = mix(parent, s.chain().low);
    h = mix(h, s.chain().high);
    h = mix(h, s.content().low);
    h = mix(h, static_cast<std::uint64_t>(s.tokens()));
    h = mix(h, (static_cast<std::uint64_t>(s.token_source()) << 8) | s.cache_control());
    h = mix(h, s.estimate_bits());
    h = mix(h, (static_cast<std::uint64_t>(s.lookback_position()) << 32) |
                   static_cast<std::uint32_t>(s.index()));
    return mix(h, static_cast<std::uint64_t>(static_cast<std::uint32_t>(s.message())));
}

// The counts cleared: what the loader had before model::assign_tokens.
void
clear_counts(std::vector<Segment>& segments)
{
    for (auto& s : segments) {
        s.tokens = 0;
        s.cumulative_tokens = 0;
        if (s.token_source != model::TokenSource::exact) {
            s.token_source = model::TokenSource::estimated;
        }
    }
}

// Counts as the loader gave them, from the uncounted segments and the usage.
void
recount(std::vector<Segment>& segments, const std::optional<model::Usage>& usage)
{
    Request scratch; // assign_tokens also notes and scales: the head keeps its own
    scratch.usage = usage;
    scratch.segments = std::move(segments);
    model::assign_tokens(scratch);
    segments = std::move(scratch.segments);
}

// `recounted` is a copy of `segments` whose counts were cleared and
// recounted: only the counts can differ (comparing every field was a tenth
// of the load's delivering thread on a Claude Code folder).
bool
same_counts(const std::vector<Segment>& recounted, const std::vector<Segment>& segments)
{
    return recounted.size() == segments.size() &&
           std::equal(recounted.begin(), recounted.end(), segments.begin(),
                      [](const auto& x, const auto& y) {
                          return x.tokens == y.tokens &&
                                 x.cumulative_tokens == y.cumulative_tokens &&
                                 x.token_source == y.token_source;
                      });
}

bool
summed(const std::vector<Segment>& segments)
{
    std::int64_t total = 0;
    for (const auto& s : segments) {
        total += s.tokens;
        if (s.cumulative_tokens != total) {
            return false;
        }
    }
    return true;
}

} // namespace

std::uint32_t
RequestStore::intern(std::uint32_t parent, const PackedSegment& segment)
{
    // A conversation's next request walks the path of the one before: the
    // child a node was last asked for is usually the one asked for again,
    // found without hashing the segment or probing the index.
    if (const std::uint32_t last = parent == k_none ? m_last_root : m_nodes[parent].last_child;
        last != k_none) {
        const Node& child = m_nodes[last];
        if (child.refs > 0 && child.parent == parent && child.segment == segment) {
            return last;
        }
    }
    const std::uint64_t key = key_of(parent, segment);
    const std::uint32_t* found = m_index.find(key);
    if (found != nullptr) {
        const Node& node = m_nodes[*found];
        if (node.parent == parent && node.segment == segment) {
            (parent == k_none ? m_last_root : m_nodes[parent].last_child) = *found;
            return *found;
        }
    }
    std::uint32_t id = 0;
    if (m_free.empty()) {
        id = static_cast<std::uint32_t>(m_nodes.size());
        m_nodes.emplace_back();
    } else {
        id = m_free.back();
        m_free.pop_back();
    }
    Node& node = m_nodes[id];
    node.parent = parent;
    node.refs = 0;
    node.last_child = k_none;
    node.segment = segment;
    if (parent != k_none) {
        ++m_nodes[parent].refs;
    }
    (parent == k_none ? m_last_root : m_nodes[parent].last_child) = id;
    if (found == nullptr) {
        *m_index.try_emplace(key).first = id; // a 64-bit collision is merely not shared
    }
    return id;
}

// One path less ends at `leaf`: nodes left without children or paths are
// freed, up to the first one still in use.
void
RequestStore::release(std::uint32_t leaf)
{
    for (auto at = leaf; at != k_none;) {
        Node& node = m_nodes[at];
        if (--node.refs > 0) {
            return;
        }
        const std::uint64_t key = key_of(node.parent, node.segment);
        if (const std::uint32_t* id = m_index.find(key); id != nullptr && *id == at) {
            m_index.erase(key);
        }
        m_free.push_back(at);
        at = node.parent;
    }
}

RequestStore::Path
RequestStore::store(const std::vector<Segment>& segments, Form form)
{
    Path path;
    path.form = form;
    path.length = static_cast<std::uint32_t>(segments.size());
    for (const auto& s : segments) {
        path.leaf = intern(path.leaf, *PackedSegment::pack(s)); // set() checked that it fits
    }
    if (path.leaf != k_none) {
        ++m_nodes[path.leaf].refs;
    }
    return path;
}

void
RequestStore::rebuild(std::size_t i, std::vector<Segment>& out) const
{
    out.clear();
    const Path& path = m_paths[i];
    if (path.form == Form::own) {
        out = m_own.at(i);
        return;
    }
    out.resize(path.length);
    std::size_t k = path.length;
    for (auto at = path.leaf; at != k_none; at = m_nodes[at].parent) {
        m_nodes[at].segment.unpack(out[--k]);
    }
    if (path.form == Form::recount) {
        recount(out, m_heads.usage(i));
        return;
    }
    std::int64_t total = 0;
    for (auto& s : out) {
        total += s.tokens;
        s.cumulative_tokens = total;
    }
}

void
RequestStore::set(std::size_t i, const Request& request, bool from_log)
{
    m_own.erase(i);
    const std::vector<Segment>& segments = request.segments;
    Path path;
    if (!segments.empty()) {
        if (from_log) {
            // Kept uncounted when recounting gives the request back exactly.
            // In a vector kept between calls: this runs for every request.
            std::vector<Segment>& again = m_scratch;
            again.assign(segments.begin(), segments.end());
            clear_counts(again);
            recount(again, request.usage);
            if (same_counts(again, segments)) {
                clear_counts(again); // equal to the segments: their uncounted form
                path = store(again, Form::recount);
            }
        }
        if (path.form == Form::empty && summed(segments) &&
            std::all_of(segments.begin(), segments.end(), PackedSegment::fits)) {
            path = store(segments, Form::as_is);
        } else if (path.form == Form::empty) {
            path.form = Form::own;
            m_own.emplace(i, segments);
        }
    }
    if (i == m_heads.size()) {
        m_heads.push_back(request);
    } else {
        m_heads.set(i, request);
    }
    // The new path first, so that what it shares with the old one stays.
    const Path old = m_paths[i];
    m_paths[i] = path;
    if (old.form == Form::recount || old.form == Form::as_is) {
        release(old.leaf);
    }
}

void
RequestStore::add(const Request& request)
{
    m_paths.emplace_back();
    set(m_heads.size(), request, true);
}

void
RequestStore::put(std::size_t i, const Request& request)
{
    set(i, request, false);
}

Request
RequestStore::get(std::size_t i) const
{
    Request r = m_heads.get(i);
    rebuild(i, r.segments);
    return r;
}

bool
RequestStore::shared_segments(std::size_t i, std::vector<Segment>& out) const
{
    if (m_paths[i].form == Form::own) {
        return false;
    }
    rebuild(i, out);
    return true;
}

void
RequestStore::chains(std::size_t i, std::vector<Hash128>& out) const
{
    out.clear();
    const Path& path = m_paths[i];
    if (path.form == Form::own) {
        for (const auto& s : m_own.at(i)) {
            out.push_back(s.chain);
        }
        return;
    }
    out.resize(path.length);
    std::size_t k = path.length;
    for (auto at = path.leaf; at != k_none; at = m_nodes[at].parent) {
        out[--k] = m_nodes[at].segment.chain();
    }
}

std::vector<Request>
RequestStore::all() const
{
    std::vector<Request> out;
    out.reserve(size());
    for (std::size_t i = 0; i < size(); ++i) {
        out.push_back(get(i));
    }
    return out;
}

void
RequestStore::permute(const std::vector<std::size_t>& order)
{
    m_heads.permute(order);
    std::vector<Path> paths(order.size());
    std::unordered_map<std::size_t, std::vector<Segment>> own;
    for (std::size_t k = 0; k < order.size(); ++k) {
        paths[k] = m_paths[order[k]];
        if (const auto it = m_own.find(order[k]); it != m_own.end()) {
            own.emplace(k, std::move(it->second));
        }
    }
    m_paths = std::move(paths);
    m_own = std::move(own);
}

} // namespace cachewise::analysis
