#include "analysis/dynamic_fields.hpp"
#include "helpers.hpp"
#include "util/error.hpp"

#include <doctest/doctest.h>

using namespace cachewise;
using namespace cachewise::analysis;

namespace {

std::vector<std::string>
kinds(const std::vector<DynamicMatch>& matches)
{
    std::vector<std::string> out;
    for (const auto& m : matches) {
        out.push_back(m.kind);
    }
    return out;
}

} // namespace

TEST_SUITE("analysis::dynamic_fields")
{
    TEST_CASE(
        "every built-in pattern matches its own examples (checked at load) and finds them in text")
    {
        const DynamicFieldMatcher m(test::rules().dynamic_fields);
        for (const auto& p : test::rules().dynamic_fields.patterns) {
            for (const auto& e : p.examples) {
                const auto found = m.find("before " + e + " after");
                CHECK_MESSAGE(!found.empty(), p.name, ": ", e);
            }
        }
    }

    TEST_CASE("kinds and positions")
    {
        const DynamicFieldMatcher m(test::rules().dynamic_fields);
        const std::string text =
            "Run 7d3f9a2c-5b1e-4c8d-9f60-2a4e8b1c3d57 started 2026-11-20T14:03:12Z; 3 turns left.";
        const auto found = m.find(text);
        REQUIRE(found.size() >= 3);
        CHECK(found[0].kind == "uuid");
        CHECK(found[0].begin == 4);
        CHECK(found[0].end == 40);
        const auto k = kinds(found);
        CHECK(std::count(k.begin(), k.end(), "timestamp") >= 1);
        CHECK(std::count(k.begin(), k.end(), "counter") == 1);
    }

    TEST_CASE("an announcing phrase gives way to the value after it")
    {
        const DynamicFieldMatcher m(test::rules().dynamic_fields);
        auto found = m.find("Current date and time: 2026-11-20T14:03:12Z");
        REQUIRE(!found.empty());
        CHECK(found[0].kind == "timestamp");
        CHECK(found[0].name == "iso-datetime");
        found = m.find("Today is Friday and the weather is fine.");
        REQUIRE(found.size() == 1);
        CHECK(found[0].kind == "today");
    }

    TEST_CASE("the two ends of a range are a schedule or a period, not a changing value")
    {
        const DynamicFieldMatcher m(test::rules().dynamic_fields);
        CHECK(m.find("Office hours 9:30 AM to 5:00 PM, Monday to Friday.").empty());
        CHECK(m.find("Valid from 2025-01-01 until 2025-03-31 only.").empty());
        CHECK(m.find("Maintenance 02:00:00 - 04:00:00 UTC.").empty());
        // Alone, or two values not joined as a range, each still counts.
        CHECK(kinds(m.find("The time is now 9:30 AM.")) == std::vector<std::string>{"time"});
        CHECK(m.find("Opened 2025-01-01, closed 2025-03-31.").size() == 2);
    }

    TEST_CASE("high-entropy tokens, but not words or plain numbers")
    {
        const DynamicFieldMatcher m(test::rules().dynamic_fields);
        CHECK(kinds(m.find("key sk-ant-aB3dE9fG7hJ2kL5mN8pQ1rS4t here")) ==
              std::vector<std::string>{"random-token"});
        CHECK(m.find("internationalization_configuration_manager").empty());
        CHECK(m.find("the year 2026 had 365 days").empty());
    }

    TEST_CASE("stable prompt text has no dynamic fields")
    {
        const DynamicFieldMatcher m(test::rules().dynamic_fields);
        CHECK(m.find("You are a helpful assistant. Answer in English, cite sources, and keep "
                     "answers short.")
                  .empty());
        CHECK(m.find("def parse(x):\n    return int(x)\n").empty());
    }

    TEST_CASE("the change is classified by the match that covers it")
    {
        const DynamicFieldMatcher m(test::rules().dynamic_fields);
        const std::string text = "Date: 2026-11-21. Rules follow.";
        const auto hit = m.find_covering(text, 15, 16);
        REQUIRE(hit);
        CHECK(hit->kind == "date");
        CHECK(!m.find_covering(text, 20, 22));
        // A whole passage replaced is not explained by a date inside it.
        CHECK(!m.find_covering(text, 0, text.size()));
    }

    TEST_CASE("user patterns are added from a file and validated")
    {
        test::TempFile good(
            R"({"schema_version":1,"patterns":[{"name":"ticket","kind":"ticket-id","pattern":"\\bTKT-\\d{6}\\b","examples":["TKT-123456"]}]})",
            "extra.json");
        auto rules = test::rules().dynamic_fields;
        ruleset::add_dynamic_fields(rules, good.path());
        const DynamicFieldMatcher m(rules);
        CHECK(kinds(m.find("see TKT-000042")) == std::vector<std::string>{"ticket-id"});

        test::TempFile bad(
            R"({"schema_version":1,"patterns":[{"name":"x","kind":"k","pattern":"\\d{4}","examples":["abc"]}]})",
            "bad.json");
        CHECK_THROWS_WITH_AS(
            ruleset::add_dynamic_fields(rules, bad.path()),
            doctest::Contains("patterns[0].examples[0]: does not match the pattern"), Error);
        test::TempFile broken(
            R"({"schema_version":1,"patterns":[{"name":"x","kind":"k","pattern":"(","examples":["("]}]})",
            "broken.json");
        CHECK_THROWS_WITH_AS(ruleset::add_dynamic_fields(rules, broken.path()),
                             doctest::Contains("patterns[0].pattern: invalid RE2 pattern"), Error);
        test::TempFile words(
            R"({"schema_version":1,"patterns":[{"name":"x","kind":"k","pattern":"time:","examples":["time: 14:03"],"counter_examples":["one at a time: go"]}]})",
            "words.json");
        CHECK_THROWS_WITH_AS(
            ruleset::add_dynamic_fields(rules, words.path()),
            doctest::Contains("patterns[0].counter_examples[0]: matches the pattern, but a "
                              "counter-example must not"),
            Error);
    }

    TEST_CASE("no counter-example of the rules is found by the whole matcher")
    {
        // Prose, code, paths, versions and ids of past turns: a pattern
        // matches a value, never a word.
        const auto& fields = test::rules().dynamic_fields;
        const DynamicFieldMatcher m(fields);
        for (const auto& p : fields.patterns) {
            CHECK_MESSAGE(!p.counter_examples.empty(), p.name);
            for (const auto& text : p.counter_examples) {
                CHECK_MESSAGE(kinds(m.find(text)).empty(), p.name, ": ", text);
            }
        }
        for (const auto& text : fields.entropy_counter_examples) {
            CHECK_MESSAGE(kinds(m.find(text)).empty(), text);
        }
    }

    TEST_CASE("prose that once raised false alarms stays quiet")
    {
        const DynamicFieldMatcher m(test::rules().dynamic_fields);
        for (const std::string text : {
                 "* One command at a time: You can only execute one bash command at a time.",
                 "Step 1: read the file. Step 2: run the tests.",
                 "Use the current date when naming files.",
                 "{\"file_id\":\"file_011CcaGs24UqTfYHgDWn7trH\",\"type\":\"container_upload\"}",
                 "tool_use_id: toolu_01A09q90qw90lq917835lq9QW3, call_9xKq2mZ81aQ7LpX3vT5rB2",
                 "model gpt-4o-2024-08-06 and claude-3-5-sonnet-20241022",
                 "see /usr/lib/x86_64-linux-gnu/libstdc++.so.6 and src/main.cpp:12:34",
             }) {
            CHECK_MESSAGE(kinds(m.find(text)).empty(), text);
        }
        // The values themselves are still found.
        CHECK(kinds(m.find("Today's date: 2026-11-20")) == std::vector<std::string>{"date"});
        CHECK(kinds(m.find("time = 14:03")) == std::vector<std::string>{"timestamp"});
    }

    TEST_CASE("the words around a value can make it a duration, a quantity or history")
    {
        const DynamicFieldMatcher m(test::rules().dynamic_fields);
        for (const std::string text : {
                 "Each batch job is limited to 02:00:00 per job.",
                 "Requests time out after a timeout of 00:30:00.",
                 "The events table holds 1700000000 rows.",
                 "It served 1700000000000 unique visitors.",
                 "Acme was founded on 2019-03-01 in Oslo.",
                 "The company was incorporated on March 1, 2019.",
             }) {
            CHECK_MESSAGE(kinds(m.find(text)).empty(), text);
        }
        // The same values in other words are still found.
        CHECK(kinds(m.find("The job started at 02:00:00 today.")) ==
              std::vector<std::string>{"time"});
        CHECK(kinds(m.find("ts=1700000000, seq=5")) == std::vector<std::string>{"epoch"});
        CHECK(kinds(m.find("Acme, 2019-03-01: daily report")) == std::vector<std::string>{"date"});
    }

    TEST_CASE("a user pattern's context is proved by its examples and counter-examples")
    {
        auto rules = test::rules().dynamic_fields;
        test::TempFile good(
            R"({"schema_version":1,"patterns":[{"name":"build","kind":"build-id","pattern":"\\bB\\d{5}\\b","not_followed_by":"^ builds\\b","examples":["B12345"],"counter_examples":["B12345 builds ago"]}]})",
            "context.json");
        ruleset::add_dynamic_fields(rules, good.path());
        const DynamicFieldMatcher m(rules);
        CHECK(kinds(m.find("see B00042 and B00043 builds")) ==
              std::vector<std::string>{"build-id"});

        auto again = test::rules().dynamic_fields;
        test::TempFile loose(
            R"({"schema_version":1,"patterns":[{"name":"build","kind":"build-id","pattern":"\\bB\\d{5}\\b","not_followed_by":"^ builds\\b","examples":["B12345"],"counter_examples":["B12345 ago"]}]})",
            "loose.json");
        ruleset::add_dynamic_fields(again, loose.path());
        CHECK_THROWS_WITH_AS(DynamicFieldMatcher{again},
                             doctest::Contains("pattern build: counter_examples[0]: found in its "
                                               "context"),
                             Error);
        test::TempFile broken(
            R"({"schema_version":1,"patterns":[{"name":"x","kind":"k","pattern":"x","not_preceded_by":"(","examples":["x"]}]})",
            "broken-context.json");
        CHECK_THROWS_WITH_AS(ruleset::add_dynamic_fields(again, broken.path()),
                             doctest::Contains("patterns[0].not_preceded_by: invalid RE2 pattern"),
                             Error);
    }

    TEST_CASE("a catch-all pattern yields to a specific one on the same value")
    {
        const DynamicFieldMatcher m(test::rules().dynamic_fields);
        const auto found = m.find("time: 2026-11-20T14:03:12Z");
        REQUIRE(found.size() == 1);
        CHECK(found[0].name == "iso-datetime");
    }
}
