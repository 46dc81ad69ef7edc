#pragma once

#include "model/segment.hpp"
#include "util/hash.hpp"

#include <cstdint>
#include <optional>

namespace cachewise::analysis {

// A model::Segment as RequestStore keeps it in each node: every field but
// cumulative_tokens (a path sums it on the way out), in 64 bytes instead of
// 96 (the path's numbers and the flags without padding, the token count in
// 32 bits). The nodes are the largest table of a long log (one per distinct
// prefix: 1.9 million for 4 GB of Claude Code transcripts).
class PackedSegment {
public:
    PackedSegment() = default;
    // Nothing when a field does not fit (a count beyond 32 bits): the store
    // then keeps that request's segments as they are.
    static std::optional<PackedSegment> pack(const model::Segment& s);
    static bool fits(const model::Segment& s);

    // The segment again, cumulative_tokens 0.
    void unpack(model::Segment& out) const;

    [[nodiscard]] const Hash128& chain() const { return m_chain; }
    [[nodiscard]] const Hash128& content() const { return m_content; }
    [[nodiscard]] std::int64_t tokens() const { return m_tokens; }
    [[nodiscard]] std::int32_t message() const { return m_message; }
    [[nodiscard]] std::int32_t index() const { return m_index; }
    [[nodiscard]] std::uint32_t lookback_position() const { return m_lookback; }
    [[nodiscard]] std::uint32_t estimate_bits() const { return m_estimate; }
    [[nodiscard]] std::uint8_t token_source() const { return m_token_source; }
    // 0: no cache_control; else 1 + its Ttl.
    [[nodiscard]] std::uint8_t cache_control() const;

    // Every field: equal packed segments unpack to equal segments.
    friend bool operator==(const PackedSegment&, const PackedSegment&) = default;

private:
    Hash128 m_chain;
    Hash128 m_content;
    std::int32_t m_message = -1;
    std::int32_t m_index = 0;
    std::uint32_t m_lookback = 0;
    std::uint32_t m_bytes = 0;
    std::uint32_t m_estimate = 0; // the float's bits: compared as they are
    std::int32_t m_tokens = 0;
    std::uint8_t m_level = 0;
    std::uint8_t m_kind = 0;
    std::uint8_t m_role = 0;
    std::uint8_t m_token_source = 0;
    std::uint8_t m_root_part = 0; // PathRoot in the low four bits, PathPart in the high
    std::uint8_t m_flags = 0;     // see the k_ bits in packed_segment.cpp
};

} // namespace cachewise::analysis
