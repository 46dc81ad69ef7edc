#include "model/chain.hpp"

#include <xxhash.h>

#include <array>
#include <cstring>

namespace cachewise::model {

namespace {

constexpr std::string_view k_chain_version = "cachewise/chain/v1";

Hash128
level_params_hash(const Request& request, Level level)
{
    HashBuilder b;
    b.add(ruleset::to_string(level));
    bool any = false;
    for (const auto& p : request.params) {
        if (p.level == level && p.name != "model") {
            b.add(p.name).add(std::string_view("=", 1));
            b.add(p.present ? p.value
                            : std::string_view("\x01"
                                               "absent",
                                               7));
            b.add(std::string_view("\0", 1));
            any = true;
        }
    }
    return any ? b.digest() : Hash128{};
}

} // namespace

Hash128
chain_root(const Request& request, Level first_level)
{
    HashBuilder b;
    b.add(k_chain_version).add(std::string_view("\0", 1));
    b.add(request.provider).add(std::string_view("\0", 1));
    b.add(request.model).add(std::string_view("\0", 1));
    // Parameters that invalidate from the first level on (other than the
    // model, which is already here) belong to the root as well.
    const Hash128 first = level_params_hash(request, first_level);
    return b.add(first).digest();
}

namespace {

// Parent, the parameter hashes of the levels the segment enters, a header and
// the content: one buffer, one XXH3 call per link.
Hash128
link(const Hash128& parent, const Hash128* entered, std::size_t n_entered, const Segment& s)
{
    unsigned char buffer[16 * 4 + 8];
    std::size_t n = 0;
    const auto put = [&](const Hash128& h) {
        std::memcpy(buffer + n, &h.low, 8);
        std::memcpy(buffer + n + 8, &h.high, 8);
        n += 16;
    };
    put(parent);
    for (std::size_t i = 0; i < n_entered; ++i) {
        put(entered[i]);
    }
    buffer[n++] = static_cast<unsigned char>(s.path.level);
    buffer[n++] = static_cast<unsigned char>(s.role);
    buffer[n++] = s.message_start ? 1 : 0;
    put(s.content);
    const XXH128_hash_t h = XXH3_128bits(buffer, n);
    return Hash128{h.low64, h.high64};
}

} // namespace

Hash128
chain_link(const Hash128& parent, const Segment& segment)
{
    return link(parent, nullptr, 0, segment);
}

void
compute_chain(Request& request, const std::vector<Level>& order)
{
    // Position of each level in the render order.
    std::array<int, 3> rank{0, 1, 2};
    for (std::size_t i = 0; i < order.size(); ++i) {
        rank[static_cast<std::size_t>(order[i])] = static_cast<int>(i);
    }
    Hash128 parent = chain_root(request, order.empty() ? Level::tools : order.front());
    std::array<Hash128, 3> level_hash{}; // by rank
    for (std::size_t i = 1; i < order.size(); ++i) {
        level_hash[i] = level_params_hash(request, order[i]);
    }
    int previous = 0;
    for (auto& s : request.segments) {
        const int rank_of = rank[static_cast<std::size_t>(s.path.level)];
        const std::size_t first = static_cast<std::size_t>(previous) + 1;
        const std::size_t entered =
            rank_of > previous ? static_cast<std::size_t>(rank_of - previous) : 0;
        parent = link(parent, level_hash.data() + first, entered, s);
        previous = std::max(previous, rank_of);
        s.chain = parent;
    }
}

void
assign_lookback_positions(Request& request, bool tool_runs_as_one)
{
    std::uint32_t position = 0;
    SegmentKind previous = SegmentKind::other;
    bool first = true;
    for (auto& s : request.segments) {
        const bool run = tool_runs_as_one && !first && s.kind == previous &&
                         (s.kind == SegmentKind::tool_use || s.kind == SegmentKind::tool_result);
        if (!run) {
            ++position;
        }
        s.lookback_position = position;
        previous = s.kind;
        first = false;
    }
}

std::size_t
shared_prefix(const Request& a, const Request& b)
{
    const std::size_t n = std::min(a.segments.size(), b.segments.size());
    std::size_t k = 0;
    while (k < n && a.segments[k].chain == b.segments[k].chain) {
        ++k;
    }
    return k;
}

} // namespace cachewise::model
