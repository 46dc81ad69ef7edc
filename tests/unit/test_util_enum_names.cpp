#include "model/request.hpp"
#include "model/segment.hpp"
#include "util/enum_names.hpp"

#include <doctest/doctest.h>

#include <cstdint>

using namespace cachewise;

namespace {

enum class Three : std::uint8_t { a, b, c };
struct Holder {
    enum class Nested { only };
};
enum class Empty {};

} // namespace

// enum_count is what keeps a names table complete: an enumerator added to an
// enum without a name in its table must fail the build (names_of's
// static_assert), so the count must be exact, for nested enums and enums in
// an anonymous namespace too (clang spells it "(anonymous namespace)").
static_assert(util::enum_count<Three>() == 3);
static_assert(util::enum_count<Holder::Nested>() == 1);
static_assert(util::enum_count<Empty>() == 0);
static_assert(util::enum_count<model::ApiFormat>() == 5);
static_assert(util::enum_count<model::SegmentKind>() == 13);

TEST_CASE("names_of: each enumerator's name, and ? for a value outside the enum")
{
    constexpr auto k_names = util::names_of<Three>({"x", "y", "z"});
    static_assert(k_names[Three::b] == "y");
    CHECK(k_names[Three::a] == "x");
    CHECK(k_names[Three::c] == "z");
    CHECK(k_names[static_cast<Three>(7)] == "?");
}

TEST_CASE("to_string of the model's enums: the names the reports print")
{
    CHECK(model::to_string(model::ApiFormat::openai_chat) == "openai-chat");
    CHECK(model::to_string(model::ApiFormat::bedrock_converse) == "bedrock-converse");
    CHECK(model::to_string(model::SegmentKind::unlogged) == "unlogged");
    CHECK(model::to_string(model::Role::none).empty());
    CHECK(model::to_string(model::TokenSource::exact) == "exact");
}
