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
chain_root(const Request& request)
{
    HashBuilder b;
    b.add(k_chain_version).add(std::string_view("\0", 1));
    b.add(request.provider).add(std::string_view("\0", 1));
    b.add(request.model).add(std::string_view("\0", 1));
    // Parameters that invalidate from the tools level on (other than the model,
    // which is already here) belong to the root as well.
    const Hash128 tools = level_params_hash(request, Level::tools);
    return b.add(tools).digest();
}

void
compute_chain(Request& request)
{
    Hash128 parent = chain_root(request);
    std::array<Hash128, 3> level_hash{};
    for (auto level : {Level::system, Level::messages}) {
        level_hash[static_cast<std::size_t>(level)] = level_params_hash(request, level);
    }
    int previous_level = static_cast<int>(Level::tools);
    for (auto& s : request.segments) {
        // Parent, up to two level hashes, a header and the content: one buffer,
        // one XXH3 call per link.
        unsigned char buffer[16 * 4 + 8];
        std::size_t n = 0;
        const auto put = [&](const Hash128& h) {
            std::memcpy(buffer + n, &h.low, 8);
            std::memcpy(buffer + n + 8, &h.high, 8);
            n += 16;
        };
        put(parent);
        const int level = static_cast<int>(s.path.level);
        for (int l = previous_level + 1; l <= level; ++l) {
            put(level_hash[static_cast<std::size_t>(l)]);
        }
        previous_level = std::max(previous_level, level);
        buffer[n++] = static_cast<unsigned char>(level);
        buffer[n++] = static_cast<unsigned char>(s.role);
        buffer[n++] = s.message_start ? 1 : 0;
        put(s.content);
        const XXH128_hash_t h = XXH3_128bits(buffer, n);
        parent = Hash128{h.low64, h.high64};
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
