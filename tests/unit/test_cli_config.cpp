#include "cli/gate.hpp"
#include "cli/project_config.hpp"
#include "helpers.hpp"
#include "util/error.hpp"

#include <doctest/doctest.h>

using namespace cachewise;

TEST_SUITE("cli::config")
{
    TEST_CASE("the nearest .cachewise.json sets defaults, with origins")
    {
        test::TempFile config(
            R"({"model":"claude-haiku-4-5","fail_on":"warning","disabled_rules":["CW017"],"dynamic_fields":["extra.json"],"max_regression":2.5})",
            ".cachewise.json");
        std::filesystem::create_directories(config.dir() + "/a/b");
        const auto c = cli::load_project_config(config.dir() + "/a/b");
        REQUIRE(c.file);
        CHECK(c.model.value == "claude-haiku-4-5");
        CHECK(c.model.origin == config.path());
        CHECK(c.fail_on.value == "warning");
        CHECK(c.disabled_rules.value == std::vector<std::string>{"CW017"});
        CHECK(c.dynamic_fields.value.front() == config.dir() + "/extra.json");
        CHECK(c.max_regression.value == doctest::Approx(2.5));
        CHECK(c.window.origin == "default");
        const std::string shown = cli::describe(c);
        CHECK(shown.find("(" + config.path() + ") model = claude-haiku-4-5") != std::string::npos);
        CHECK(shown.find("(default) window = 1h") != std::string::npos);
    }

    TEST_CASE("a bad setting names the file and the key")
    {
        test::TempFile config(R"({"fail_on": 3})", ".cachewise.json");
        CHECK_THROWS_WITH_AS(cli::load_project_config(config.dir()),
                             doctest::Contains("fail_on: expected a string"), Error);
        test::TempFile unknown(R"({"colour": "red"})", ".cachewise.json");
        CHECK_THROWS_WITH_AS(cli::load_project_config(unknown.dir()),
                             doctest::Contains("colour: unknown setting"), Error);
    }

    TEST_CASE("a wrong element type names its index and what was found")
    {
        test::TempFile config(R"({"placeholders": ["{{name}}", 7]})", ".cachewise.json");
        CHECK_THROWS_WITH_AS(cli::load_project_config(config.dir()),
                             doctest::Contains("placeholders[1]: expected a string, found number"),
                             Error);
    }

    TEST_CASE("a hostile baseline is an input error with the field's path, never a crash")
    {
        analysis::Finding f;
        f.rule = "CW010";
        f.kind = "date";
        const auto gate_for = [](const test::TempFile& file) {
            cli::Gate g;
            g.fail_on = "warning";
            g.baseline = file.path();
            return g;
        };
        test::TempFile not_objects(R"({"findings": [1, "x"]})", "base.json");
        CHECK_THROWS_WITH_AS(cli::new_findings({f}, gate_for(not_objects)),
                             doctest::Contains("findings[0]: expected a finding object, found "
                                               "number"),
                             Error);
        test::TempFile rule_type(R"({"findings": [{"rule": {"a": 1}}]})", "base.json");
        CHECK_THROWS_WITH_AS(cli::new_findings({f}, gate_for(rule_type)),
                             doctest::Contains("findings[0].rule: expected a string, found object"),
                             Error);
        test::TempFile list_type(R"({"findings": {"rule": "CW010"}})", "base.json");
        CHECK_THROWS_WITH_AS(cli::new_findings({f}, gate_for(list_type)),
                             doctest::Contains("findings: expected an array, found object"), Error);
        test::TempFile excerpt(R"({"findings": [{"rule": "CW010", "excerpt": {"now": 5}}]})",
                               "base.json");
        CHECK_THROWS_WITH_AS(cli::new_findings({f}, gate_for(excerpt)),
                             doctest::Contains("findings[0].excerpt.now: expected a string or "
                                               "null, found number"),
                             Error);
        // No kind, no file, no location: a finding with those empty, matched as such.
        test::TempFile no_kind(R"({"findings": [{"rule": "CW010", "kind": "date"}]})", "base.json");
        CHECK(cli::new_findings({f}, gate_for(no_kind)).empty());
        test::TempFile bare(R"({"findings": [{"rule": "CW010"}]})", "base.json");
        CHECK(cli::new_findings({f}, gate_for(bare)).size() == 1);
    }

    TEST_CASE("gates: levels, rule ids, baselines")
    {
        analysis::Finding warning;
        warning.rule = "CW010";
        warning.severity = analysis::Severity::warning;
        warning.file = "t.json";
        warning.location.path = "system[0]";
        cli::Gate gate;
        gate.fail_on = "error";
        CHECK(cli::gate_status({warning}, gate) == 0);
        gate.fail_on = "warning";
        CHECK(cli::gate_status({warning}, gate) == 1);
        gate.fail_on = "CW012,CW010";
        CHECK(cli::gate_status({warning}, gate) == 1);
        gate.fail_on = "CW012";
        CHECK(cli::gate_status({warning}, gate) == 0);
        CHECK_THROWS_AS(cli::check_fail_on("CW999"), Error);
        CHECK_NOTHROW(cli::check_fail_on("none"));

        test::TempFile baseline(
            R"({"findings":[{"rule":"CW010","file":"t.json","kind":null,"location":{"path":"system[0]"},"excerpt":null}],"totals":{"hit_rate":0.9}})",
            "baseline.json");
        gate.fail_on = "warning";
        gate.baseline = baseline.path();
        CHECK(cli::new_findings({warning}, gate).empty());
        analysis::Finding other = warning;
        other.location.path = "system[1]";
        CHECK(cli::new_findings({warning, other}, gate).size() == 1);
        gate.max_regression = 5;
        CHECK(cli::gate_status({}, gate, 0.86) == 0);
        CHECK(cli::gate_status({}, gate, 0.80) == 1);
    }
}
