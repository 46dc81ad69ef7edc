#include "report/request_json.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

using cachewise::report::Json;
using cachewise::report::json_array;
using cachewise::report::or_null;

TEST_SUITE("report::request_json")
{
    TEST_CASE("what was not known is null, never \"\" or 0")
    {
        CHECK(or_null(std::string()).is_null());
        CHECK(or_null(std::string("s1")) == "s1");
        CHECK(or_null(std::vector<int>{}).is_null());
        CHECK(or_null(std::vector<int>{1}) == Json::array({1}));
        CHECK(or_null(0).is_null());
        CHECK(or_null(std::uint64_t{12}) == 12);
    }

    TEST_CASE("json_array keeps the order and is [] when empty")
    {
        const std::vector<int> xs = {3, 1, 2};
        const auto twice = [](int x) { return Json(2 * x); };
        CHECK(json_array(xs, twice).dump() == "[6,2,4]");
        CHECK(json_array(std::vector<int>{}, twice).dump() == "[]");
    }

    TEST_CASE("a command's document opens with its schema version and command")
    {
        CHECK(cachewise::report::json_document("audit").dump() ==
              R"({"schema_version":1,"command":"audit"})");
    }
}
