#include "ingest/array_spans.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using namespace cachewise::ingest;

namespace {

std::vector<std::string>
elements_of(const std::string& text)
{
    std::vector<std::string> out;
    for (const auto& e : split_array(text, 1).elements) {
        out.push_back(text.substr(e.begin, e.end - e.begin) + (e.cut ? "<cut>" : ""));
    }
    return out;
}

} // namespace

TEST_SUITE("ingest::array_spans")
{
    TEST_CASE("elements are found by brackets and strings, whatever they hold")
    {
        const std::string text = R"([{"a":"}]\"{["}, [1,[2]] ,"x]",42,null])";
        CHECK(elements_of(text) ==
              std::vector<std::string>{R"({"a":"}]\"{["})", "[1,[2]]", R"("x]")", "42", "null"});
        const auto spans = split_array(text, 1);
        CHECK(spans.closed);
        CHECK_FALSE(spans.stray);
        CHECK_FALSE(spans.trailing);
    }

    TEST_CASE("a text cut short: the last element is cut, or the array is not closed")
    {
        CHECK(elements_of(R"([{"a":1},{"b":"x)") ==
              std::vector<std::string>{R"({"a":1})", R"({"b":"x<cut>)"});
        CHECK(elements_of(R"([{"a":1},{"b":[1,2)") ==
              std::vector<std::string>{R"({"a":1})", R"({"b":[1,2<cut>)"});
        const auto spans = split_array(R"([{"a":1},)", 1);
        CHECK(spans.elements.size() == 1);
        CHECK_FALSE(spans.closed);
        CHECK(split_array("[", 1).elements.empty());
    }

    TEST_CASE("a stray byte between elements ends the split, and text after the close is told")
    {
        const auto stray = split_array(R"([{"a":1} {"b":2}])", 1);
        CHECK(stray.elements.size() == 1);
        REQUIRE(stray.stray);
        CHECK(*stray.stray == 9);
        const auto trailing = split_array("[1] x", 1);
        CHECK(trailing.closed);
        REQUIRE(trailing.trailing);
        CHECK(*trailing.trailing == 4);
    }

    TEST_CASE("no value where an element is due is a break, never an empty element or a loop")
    {
        CHECK(split_array("[1,,2]", 1).elements.size() == 1);
        CHECK(split_array("[1,,2]", 1).stray == 3);
        CHECK(split_array("[}", 1).stray);
        // A line of garbage where an element is due is one break, not an element.
        const auto nul = split_array(std::string("[{\"a\":1},\n\0\n{\"b\":2}]", 19), 1);
        CHECK(nul.elements.size() == 1);
        CHECK(nul.stray == 10);
    }

    TEST_CASE("text after a document's value: JSON Lines read as one body, not a pretty one")
    {
        CHECK(text_after_value("{\"a\":1}\n{\"b\":2}\n") == 8);
        CHECK(text_after_value("  {\"a\": \"}\\\"{\"}\n\n") == std::nullopt);
        CHECK(text_after_value("{\n  \"a\": [1, {\"b\": 2}]\n}\n") == std::nullopt);
        CHECK(text_after_value("{\"a\":1} x") == 8);
        CHECK(text_after_value("{\"a\":1") == std::nullopt); // cut: the parser says so
        CHECK(text_after_value("   ") == std::nullopt);
        CHECK(trailing_text("{\"a\":1}\n{\"b\":2}", 8) ==
              "unexpected text after the JSON value at line 2, column 1 of the document: another "
              "JSON value starts there (JSON Lines? --input-format auto or exchange reads one "
              "record per line)");
        CHECK(trailing_text("{} x", 3) == "unexpected text after the JSON value at column 4");
    }
}
