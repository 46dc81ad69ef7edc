#include "model/display_text.hpp"

#include <doctest/doctest.h>

#include <string>
#include <utility>
#include <vector>

using namespace cachewise;
using model::SegmentKind;

TEST_SUITE("model::display_text")
{
    TEST_CASE("the text of text, thinking and all-text tool results; JSON otherwise")
    {
        struct Case {
            std::string rendered;
            SegmentKind kind;
            std::string shown;
        };
        const std::vector<Case> cases = {
            {R"({"type":"text","text":"Hello \"world\"\n\u00e9\ud83d\ude00"})", SegmentKind::text,
             "Hello \"world\"\n\u00e9\U0001F600"},
            {R"({"type":"thinking","thinking":"step 1","signature":"x"})", SegmentKind::thinking,
             "step 1"},
            {R"({"type":"tool_result","tool_use_id":"t1","content":"plain output"})",
             SegmentKind::tool_result, "plain output"},
            {R"({"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]})",
             SegmentKind::tool_result, "ab"},
            {R"({"type":"text","text":7})", SegmentKind::text, R"({"type":"text","text":7})"},
            {R"({"name":"Bash","input_schema":{"type":"object"}})", SegmentKind::tool,
             R"({"name":"Bash","input_schema":{"type":"object"}})"},
            {"not json", SegmentKind::text, "not json"},
            {R"(["array"])", SegmentKind::text, R"(["array"])"},
            // Duplicate keys: the last one, as nlohmann keeps it.
            {R"({"text":"first","text":"last"})", SegmentKind::text, "last"},
            {R"({"content":[{"type":"text","text":"a","text":"b"}]})", SegmentKind::tool_result,
             "b"},
        };
        for (const auto& c : cases) {
            CAPTURE(c.rendered);
            CHECK(model::display_text(c.rendered, c.kind) == c.shown);
        }
    }

    TEST_CASE("a result with a block that is not text, or a type that is not a string, is JSON")
    {
        for (const std::string rendered :
             {R"({"type":"tool_result","content":[{"type":"image","source":{}}]})",
              R"({"type":"tool_result","content":[{"type":5,"text":"a"}]})",
              R"({"type":"tool_result","content":[{"text":"a"}]})",
              R"({"type":"tool_result","content":{"text":"a"}})"}) {
            CAPTURE(rendered);
            CHECK(model::display_text(rendered, SegmentKind::tool_result) == rendered);
        }
    }

    TEST_CASE("what simdjson refuses and JSON allows is read all the same")
    {
        // An integer beyond 64 bits and nesting past simdjson's depth.
        CHECK(model::display_text(R"({"n":123456789012345678901234567890,"text":"big"})",
                                  SegmentKind::text) == "big");
        const std::string deep = std::string(1500, '[') + std::string(1500, ']');
        CHECK(model::display_text(R"({"deep":)" + deep + R"(,"text":"deep"})", SegmentKind::text) ==
              "deep");
    }

    TEST_CASE("invalid JSON is shown as it is")
    {
        for (const std::string& rendered :
             {std::string(R"({"text":"a")"), std::string("{\"text\":\"\xff\"}"),
              std::string(R"({"text":"\ud800"})"), std::string(R"({"text":"a"} x)")}) {
            CAPTURE(rendered);
            CHECK(model::display_text(rendered, SegmentKind::text) == rendered);
        }
    }
}
