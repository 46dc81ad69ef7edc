#include "advise/lint.hpp"
#include "analysis/code_regions.hpp"
#include "analysis/dynamic_fields.hpp"
#include "helpers.hpp"

#include <doctest/doctest.h>

using namespace cachewise;
using analysis::code_regions;
using analysis::inside;

TEST_SUITE("analysis::code_regions")
{
    TEST_CASE("fenced blocks, inline spans and lines that read as code")
    {
        const std::string text =
            "Fill in {name}.\n```python\nfor i in range(3):\n    print(i)\n```\n"
            "Use `{i}` here, and {city} there.\nprint(f\"item {i}\")\n";
        const auto regions = code_regions(text);
        const auto at = [&](std::string_view s) { return text.find(s); };
        CHECK(!inside(regions, at("{name}"), at("{name}") + 6));
        CHECK(inside(regions, at("range(3)"), at("range(3)") + 8));
        CHECK(inside(regions, at("`{i}`") + 1, at("`{i}`") + 4));
        CHECK(!inside(regions, at("{city}"), at("{city}") + 6));
        CHECK(inside(regions, at("item {i}") + 5, at("item {i}") + 8));
    }

    TEST_CASE("an unclosed fence runs to the end")
    {
        const std::string text = "intro\n```\ncode {x}\n";
        CHECK(inside(code_regions(text), text.find("{x}"), text.find("{x}") + 3));
    }

    TEST_CASE("a placeholder inside code is not a template placeholder")
    {
        const auto matcher =
            advise::template_matcher(test::rules(), advise::LintOptions{}.placeholders);
        const auto kinds = [&](const std::string& text) {
            std::vector<std::string> out;
            for (const auto& m : matcher->find(text)) {
                out.push_back(m.kind);
            }
            return out;
        };
        CHECK(kinds("Hello {user_name}, welcome.") == std::vector<std::string>{"placeholder"});
        CHECK(kinds("```python\nprint(f\"row {i}\")\n```").empty());
        CHECK(kinds("Run `echo {i}` in a loop.").empty());
        CHECK(kinds("    for (auto& {x} : xs) {").empty());
    }
}
