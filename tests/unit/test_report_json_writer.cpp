#include "report/json_writer.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <limits>
#include <string>

using namespace cachewise;
using Json = nlohmann::ordered_json;

namespace {

// What nlohmann writes for `j` at four spaces of indentation, as a row of
// the "requests" array.
std::string
reference(const Json& j)
{
    const std::string item = j.dump(2, ' ', false, Json::error_handler_t::replace);
    std::string out;
    for (const char c : item) {
        out.push_back(c);
        if (c == '\n') {
            out += "    ";
        }
    }
    return out;
}

// Writes `j` through the writer, node by node.
void
write(report::JsonWriter& w, const Json& j)
{
    if (j.is_object()) {
        w.object();
        for (const auto& [k, v] : j.items()) {
            w.key(k);
            write(w, v);
        }
        w.end();
    } else if (j.is_array()) {
        w.array();
        for (const auto& v : j) {
            write(w, v);
        }
        w.end();
    } else if (j.is_string()) {
        w.value(j.get<std::string>());
    } else if (j.is_boolean()) {
        w.value(j.get<bool>());
    } else if (j.is_number_unsigned()) {
        w.value(j.get<std::uint64_t>());
    } else if (j.is_number_integer()) {
        w.value(j.get<std::int64_t>());
    } else if (j.is_number_float()) {
        w.value(j.get<double>());
    } else {
        w.null();
    }
}

std::string
written(const Json& j)
{
    std::string out;
    report::JsonWriter w(out, 4);
    write(w, j);
    return out;
}

} // namespace

TEST_SUITE("report::JsonWriter")
{
    TEST_CASE("lays out values as nlohmann's dump(2) does")
    {
        Json j;
        j["id"] = "req_01";
        j["empty_object"] = Json::object();
        j["empty_array"] = Json::array();
        j["nested"] = {{"a", {1, 2, {{"b", nullptr}}}}, {"c", Json::array({Json::object()})}};
        j["numbers"] = {0,
                        -1,
                        std::numeric_limits<std::int64_t>::min(),
                        std::numeric_limits<std::uint64_t>::max(),
                        0.0,
                        -0.0,
                        1.0,
                        0.1,
                        1e-7,
                        1.5e300,
                        123456.789,
                        std::nan(""),
                        std::numeric_limits<double>::infinity()};
        j["flags"] = {true, false};
        j["strings"] = {"",
                        "plain",
                        "quote \" and backslash \\",
                        "control \n\t\r\b\f\x01\x1f and \x7f",
                        "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
                        "invalid \xff\xfe and cut \xe2\x82",
                        std::string("nul \0 inside", 12)};
        j["key \"quoted\"\n"] = "odd key";
        CHECK(written(j) == reference(j));
    }

    TEST_CASE("a scalar or an empty container at the top level")
    {
        for (const Json& j :
             {Json(nullptr), Json(3), Json("x"), Json::object(), Json::array(), Json(2.5)}) {
            CHECK(written(j) == reference(j));
        }
    }

    TEST_CASE("member_or_null and optional members write null for what is missing")
    {
        std::string out;
        report::JsonWriter w(out, 0);
        w.object()
            .member_or_null("a", "")
            .member_or_null("b", "x")
            .member("c", std::optional<int>())
            .member("d", std::optional<double>(0.5))
            .end();
        CHECK(out == "{\n  \"a\": null,\n  \"b\": \"x\",\n  \"c\": null,\n  \"d\": 0.5\n}");
    }
}
