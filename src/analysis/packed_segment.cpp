#include "analysis/packed_segment.hpp"

#include <bit>
#include <limits>

namespace cachewise::analysis {

namespace {

constexpr std::uint8_t k_message_start = 1U << 0;
constexpr std::uint8_t k_cache_control_allowed = 1U << 1;
constexpr std::uint8_t k_whole_content = 1U << 2;
constexpr std::uint8_t k_cached = 1U << 3;
constexpr std::uint8_t k_has_cache_control = 1U << 4;
constexpr std::uint8_t k_one_hour = 1U << 5;

static_assert(sizeof(PackedSegment) == 64);

template <typename E>
std::uint8_t
byte_of(E e)
{
    return static_cast<std::uint8_t>(e);
}

} // namespace

bool
PackedSegment::fits(const model::Segment& s)
{
    // Paths and enums always fit; a count is scaled to the request's usage,
    // which a broken log may make absurd.
    return s.tokens >= std::numeric_limits<std::int32_t>::min() &&
           s.tokens <= std::numeric_limits<std::int32_t>::max();
}

std::optional<PackedSegment>
PackedSegment::pack(const model::Segment& s)
{
    if (!fits(s)) {
        return std::nullopt;
    }
    PackedSegment p;
    p.m_chain = s.chain;
    p.m_content = s.content;
    p.m_message = s.path.message;
    p.m_index = s.path.index;
    p.m_lookback = s.lookback_position;
    p.m_bytes = s.bytes;
    p.m_estimate = std::bit_cast<std::uint32_t>(s.estimate);
    p.m_tokens = static_cast<std::int32_t>(s.tokens);
    p.m_level = byte_of(s.path.level);
    p.m_kind = byte_of(s.kind);
    p.m_role = byte_of(s.role);
    p.m_token_source = byte_of(s.token_source);
    p.m_root_part = static_cast<std::uint8_t>(byte_of(s.path.root) | (byte_of(s.path.part) << 4));
    p.m_flags = static_cast<std::uint8_t>(
        (s.message_start ? k_message_start : 0) |
        (s.cache_control_allowed ? k_cache_control_allowed : 0) |
        (s.path.whole_content ? k_whole_content : 0) | (s.path.cached ? k_cached : 0) |
        (s.cache_control ? k_has_cache_control : 0) |
        (s.cache_control && s.cache_control->ttl == model::Ttl::one_hour ? k_one_hour : 0));
    return p;
}

void
PackedSegment::unpack(model::Segment& out) const
{
    out.path.level = static_cast<ruleset::Level>(m_level);
    out.path.message = m_message;
    out.path.index = m_index;
    out.path.whole_content = (m_flags & k_whole_content) != 0;
    out.path.root = static_cast<model::PathRoot>(m_root_part & 0x0F);
    out.path.part = static_cast<model::PathPart>(m_root_part >> 4);
    out.path.cached = (m_flags & k_cached) != 0;
    out.kind = static_cast<model::SegmentKind>(m_kind);
    out.role = static_cast<model::Role>(m_role);
    out.message_start = (m_flags & k_message_start) != 0;
    out.cache_control_allowed = (m_flags & k_cache_control_allowed) != 0;
    out.cache_control.reset();
    if ((m_flags & k_has_cache_control) != 0) {
        out.cache_control = model::CacheControl{
            (m_flags & k_one_hour) != 0 ? model::Ttl::one_hour : model::Ttl::five_minutes};
    }
    out.lookback_position = m_lookback;
    out.content = m_content;
    out.bytes = m_bytes;
    out.estimate = std::bit_cast<float>(m_estimate);
    out.tokens = m_tokens;
    out.cumulative_tokens = 0;
    out.token_source = static_cast<model::TokenSource>(m_token_source);
    out.chain = m_chain;
}

std::uint8_t
PackedSegment::cache_control() const
{
    if ((m_flags & k_has_cache_control) == 0) {
        return 0;
    }
    return (m_flags & k_one_hour) != 0 ? 2 : 1;
}

} // namespace cachewise::analysis
