#include "analysis/packed_segment.hpp"

#include <doctest/doctest.h>

#include <bit>
#include <limits>

using namespace cachewise;
using model::Segment;

namespace {

// Every field but cumulative_tokens, which a packed segment leaves out.
bool
same(const Segment& a, const Segment& b)
{
    return a.path == b.path && a.kind == b.kind && a.role == b.role &&
           a.message_start == b.message_start &&
           a.cache_control_allowed == b.cache_control_allowed &&
           a.cache_control == b.cache_control && a.lookback_position == b.lookback_position &&
           a.content == b.content && a.bytes == b.bytes &&
           std::bit_cast<std::uint32_t>(a.estimate) == std::bit_cast<std::uint32_t>(b.estimate) &&
           a.tokens == b.tokens && a.token_source == b.token_source && a.chain == b.chain;
}

Segment
roundtrip(const Segment& s)
{
    const auto packed = analysis::PackedSegment::pack(s);
    REQUIRE(packed.has_value());
    Segment out;
    out.cumulative_tokens = 99; // unpack clears it
    packed->unpack(out);
    CHECK(out.cumulative_tokens == 0);
    return out;
}

} // namespace

TEST_SUITE("analysis::PackedSegment")
{
    TEST_CASE("every field comes back, at both ends of each range")
    {
        Segment a;
        a.path = {ruleset::Level::tools,
                  7,
                  3,
                  false,
                  model::PathRoot::tool_config,
                  model::PathPart::function_declarations,
                  true};
        a.kind = model::SegmentKind::unlogged;
        a.role = model::Role::system;
        a.message_start = true;
        a.cache_control_allowed = false;
        a.cache_control = model::CacheControl{model::Ttl::one_hour};
        a.lookback_position = UINT32_MAX;
        a.content = Hash128{1, 2};
        a.bytes = UINT32_MAX;
        a.estimate = -0.0F;
        a.tokens = std::numeric_limits<std::int32_t>::max();
        a.cumulative_tokens = 123456789012;
        a.token_source = model::TokenSource::exact;
        a.chain = Hash128{UINT64_MAX, 0};
        CHECK(same(roundtrip(a), a));

        Segment b; // the defaults: no cache_control, message -1
        b.path.whole_content = true;
        b.path.root = model::PathRoot::system;
        b.path.part = model::PathPart::none;
        b.cache_control = model::CacheControl{model::Ttl::five_minutes};
        b.tokens = std::numeric_limits<std::int32_t>::min();
        b.estimate = 3.25F;
        CHECK(same(roundtrip(b), b));
        b.cache_control.reset();
        CHECK(same(roundtrip(b), b));
    }

    TEST_CASE("equal packed segments are equal segments, and one field apart is not")
    {
        Segment a;
        a.tokens = 40;
        a.chain = Hash128{5, 6};
        Segment b = a;
        b.cumulative_tokens = 1000; // not kept: still equal
        CHECK(*analysis::PackedSegment::pack(a) == *analysis::PackedSegment::pack(b));
        b.estimate = 0.5F;
        CHECK(!(*analysis::PackedSegment::pack(a) == *analysis::PackedSegment::pack(b)));
        b = a;
        b.cache_control = model::CacheControl{};
        CHECK(!(*analysis::PackedSegment::pack(a) == *analysis::PackedSegment::pack(b)));
    }

    TEST_CASE("a count beyond 32 bits does not fit")
    {
        Segment s;
        s.tokens = std::int64_t{1} << 31;
        CHECK(!analysis::PackedSegment::fits(s));
        CHECK(!analysis::PackedSegment::pack(s).has_value());
    }
}
