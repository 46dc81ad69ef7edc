#include "cli/gate.hpp"
#include "cli/project_config.hpp"
#include "cli/settings.hpp"
#include "helpers.hpp"
#include "util/error.hpp"

#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <set>

using namespace cachewise;

namespace {

cli::Settings
settings_from(const std::string& dir, const cli::FlagValues& flags = {},
              const std::string& command = "lint")
{
    return cli::resolve_settings({}, flags, command, dir);
}

// The message of the Error `f` throws; empty when it throws none.
template <typename F>
std::string
error_of(F f)
{
    try {
        f();
    } catch (const Error& e) {
        return e.what();
    }
    return {};
}

} // namespace

TEST_SUITE("cli::config")
{
    TEST_CASE("the nearest .cachewise.json sets defaults, with origins")
    {
        test::TempFile config(
            R"({"model":"claude-haiku-4-5","fail_on":"warning","disabled_rules":["CW017"],"dynamic_fields":["extra.json"],"max_regression":2.5})",
            ".cachewise.json");
        std::ofstream(config.dir() + "/extra.json") << R"({"patterns": []})";
        std::filesystem::create_directories(config.dir() + "/a/b");
        const auto c = settings_from(config.dir() + "/a/b");
        REQUIRE(c.config_file);
        CHECK(c.config_file->string() == config.path());
        CHECK(c.model.value == "claude-haiku-4-5");
        CHECK(c.model.origin == cli::Origin::config_file);
        CHECK(c.fail_on.value.level == cli::FailOn::Level::warning);
        CHECK(c.disabled_rules.value == std::vector<std::string>{"CW017"});
        CHECK(c.dynamic_fields.value.front() == config.dir() + "/extra.json");
        CHECK(c.max_regression.value == doctest::Approx(2.5));
        CHECK(c.window.origin == cli::Origin::built_in);
        CHECK(cli::origin_text(c, c.model.origin) == config.path());
        CHECK(cli::origin_text(c, c.window.origin) == "default");
        CHECK(cli::value_text(c, cli::Key::window) == "1h");
    }

    TEST_CASE("flags override the config file, and list keys that append add to it")
    {
        test::TempFile config(R"({"window":"30m","disabled_rules":["CW017"]})", ".cachewise.json");
        cli::FlagValues flags;
        flags.values[cli::Key::window] = std::string("90s");
        flags.values[cli::Key::disabled_rules] = std::vector<std::string>{"CW012"};
        const auto c = settings_from(config.dir(), flags);
        CHECK(c.window.value.seconds == doctest::Approx(90));
        CHECK(c.window.origin == cli::Origin::command_line);
        CHECK(c.disabled_rules.value == std::vector<std::string>{"CW017", "CW012"});
    }

    TEST_CASE("a bad setting names the file and the key")
    {
        test::TempFile config(R"({"fail_on": 3})", ".cachewise.json");
        CHECK_THROWS_WITH_AS(settings_from(config.dir()),
                             doctest::Contains("fail_on: expected a string"), Error);
        test::TempFile unknown(R"({"colour": "red"})", ".cachewise.json");
        CHECK_THROWS_WITH_AS(settings_from(unknown.dir()),
                             doctest::Contains("colour: unknown setting"), Error);
        test::TempFile zero(R"({"window": "0s"})", ".cachewise.json");
        CHECK_THROWS_WITH_AS(settings_from(zero.dir()),
                             doctest::Contains("window: must be longer than 0"), Error);
    }

    TEST_CASE("a wrong element type names its index and what was found")
    {
        test::TempFile config(R"({"placeholders": ["{{name}}", 7]})", ".cachewise.json");
        CHECK_THROWS_WITH_AS(settings_from(config.dir()),
                             doctest::Contains("placeholders[1]: expected a string, found number"),
                             Error);
    }

    TEST_CASE("a bad flag value is named by its flag, whatever the key")
    {
        test::TempFile dir("{}", "unrelated.json");
        const std::vector<std::pair<cli::Key, std::string>> bad = {
            {cli::Key::input_format, "--input-format: unknown format"},
            {cli::Key::format, "--format: unknown format"},
            {cli::Key::fail_on, "--fail-on: \"bogus\" is neither a level"},
            {cli::Key::placeholders, "--placeholder: pattern \"bogus(\""},
            {cli::Key::disabled_rules, "--disable: \"bogus\" is not a rule id"},
            {cli::Key::window, "--window: invalid duration \"bogus\""},
            {cli::Key::max_regression, "--max-regression: expected a number of points"},
            {cli::Key::latency, "--latency: expected a number of seconds"},
            {cli::Key::tokenize, "--tokenize: expected on or off, not \"bogus\""},
            {cli::Key::baseline, "--baseline "},
        };
        for (const auto& entry : bad) { // no structured binding: lambdas capture (clang 14)
            const cli::Key key = entry.first;
            const std::string& message = entry.second;
            cli::FlagValues flags;
            const bool list = cli::key_info(key).type == cli::ValueType::string_list;
            const std::string value = key == cli::Key::placeholders ? "bogus(" : "bogus";
            flags.values[key] =
                list ? cli::RawValue(std::vector<std::string>{value}) : cli::RawValue(value);
            CAPTURE(message);
            CHECK(error_of([&] { (void)settings_from(dir.dir(), flags); }).rfind(message, 0) == 0);
        }
    }

    TEST_CASE("numbers are plain decimals: no hex, sign, spaces or exponent")
    {
        test::TempFile dir("{}", "unrelated.json");
        // The error of one flag value, for `command`.
        const auto error_for = [&](cli::Key key, const std::string& value, const char* command) {
            cli::FlagValues flags;
            flags.values[key] = cli::RawValue(value);
            return error_of([&] { (void)settings_from(dir.dir(), flags, command); });
        };
        for (const std::string bad : {"0x4", " 2", "2 ", "+3", "1e1", "inf", "nan", ""}) {
            CAPTURE(bad);
            CHECK(error_for(cli::Key::jobs, bad, "analyze")
                      .rfind("--jobs: expected a number of threads", 0) == 0);
            CHECK(error_for(cli::Key::latency, bad, "audit")
                      .rfind("--latency: expected a number of seconds", 0) == 0);
        }
        for (const std::string bad : {"101", "-3"}) {
            CAPTURE(bad);
            CHECK(error_for(cli::Key::max_regression, bad, "audit")
                      .rfind("--max-regression: expected 0 to 100 percentage points", 0) == 0);
        }
        cli::FlagValues flags;
        flags.values[cli::Key::jobs] = cli::RawValue(std::string("3"));
        flags.values[cli::Key::latency] = cli::RawValue(std::string("0.25"));
        const auto s = settings_from(dir.dir(), flags, "audit");
        CHECK(s.jobs.value == 3);
        CHECK(s.latency.value == doctest::Approx(0.25));
    }

    TEST_CASE("the key table: one row per key, unique names and flags")
    {
        std::set<std::string_view> names;
        std::set<std::string_view> flags;
        for (const auto& key : cli::key_table()) {
            CHECK(names.insert(key.name).second);
            // A key is set by a flag, the environment or both.
            CHECK((!key.flag.empty() || !key.env.empty()));
            if (!key.flag.empty()) {
                CHECK(flags.insert(key.flag).second);
                CHECK(key.flag.substr(0, 2) == "--");
            }
            CHECK(&cli::key_info(key.key) == &key);
            if (key.in_config_file) {
                CHECK(cli::find_key(key.name) == &key);
            }
        }
        CHECK(cli::find_key("rules") == nullptr); // an environment and flag key only
    }

    TEST_CASE("the environment sets its keys, and a flag wins over it")
    {
        test::TempFile dir("{}", "unrelated.json");
        ::setenv("GITHUB_WORKSPACE", "/checkout", 1);
        ::setenv("CACHEWISE_RULES", CACHEWISE_SOURCE_DIR "/rules", 1);
        const auto from_env = settings_from(dir.dir());
        CHECK(from_env.github_workspace.value == std::optional<std::string>("/checkout"));
        CHECK(from_env.github_workspace.origin == cli::Origin::environment);
        CHECK(from_env.rules_dir.origin == cli::Origin::environment);
        cli::FlagValues flags;
        flags.values[cli::Key::rules] = std::string(CACHEWISE_SOURCE_DIR "/rules");
        CHECK(settings_from(dir.dir(), flags).rules_dir.origin == cli::Origin::command_line);
        ::setenv("CACHEWISE_RULES", "/no/such/rules", 1);
        CHECK(error_of([&] { (void)settings_from(dir.dir()); }) ==
              "$CACHEWISE_RULES: /no/such/rules: no such directory");
        ::unsetenv("CACHEWISE_RULES");
        ::unsetenv("GITHUB_WORKSPACE");
    }

    TEST_CASE("exact counts are on by default; the config, the environment or a flag turn them off")
    {
        test::TempFile none("{}", "unrelated.json");
        const auto by_default = settings_from(none.dir());
        CHECK(by_default.tokenize.value);
        CHECK(by_default.tokenize.origin == cli::Origin::built_in);
        CHECK(cli::value_text(by_default, cli::Key::tokenize) == "on");
        test::TempFile config(R"({"tokenize": "off"})", ".cachewise.json");
        const auto from_file = settings_from(config.dir());
        CHECK(!from_file.tokenize.value);
        CHECK(from_file.tokenize.origin == cli::Origin::config_file);
        ::setenv("CACHEWISE_TOKENIZE", "on", 1);
        CHECK(settings_from(config.dir()).tokenize.value);
        cli::FlagValues flags;
        flags.values[cli::Key::tokenize] = std::string("off"); // --no-tokenize, --tokenize=off
        CHECK(!settings_from(config.dir(), flags).tokenize.value);
        flags.values[cli::Key::tokenize] = std::string("true"); // --tokenize alone
        CHECK(settings_from(none.dir(), flags).tokenize.value);
        ::unsetenv("CACHEWISE_TOKENIZE");
    }

    TEST_CASE("--format is checked against what the command renders")
    {
        test::TempFile dir("{}", "unrelated.json");
        cli::FlagValues flags;
        flags.values[cli::Key::format] = std::string("csv");
        CHECK(error_of([&] {
                  (void)settings_from(dir.dir(), flags, "analyze");
              }).rfind("--format csv: not offered by analyze", 0) == 0);
        CHECK(settings_from(dir.dir(), flags, "audit").format.value == report::Format::csv);
        const std::string help = cli::format_help();
        for (const auto& name : report::format_names()) {
            CHECK(help.find(" " + name) != std::string::npos);
        }
    }

    TEST_CASE("a hostile baseline is an input error with the field's path, never a crash")
    {
        analysis::Finding f;
        f.rule = "CW010";
        f.kind = "date";
        const auto gate_for = [](const test::TempFile& file) {
            static cli::Baseline baseline;
            baseline = cli::read_baseline(file.path(), "");
            cli::Gate g;
            g.fail_on = cli::FailOn::parse("warning").value();
            g.baseline = &baseline;
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
        const auto fail_on = [](const char* text) { return cli::FailOn::parse(text).value(); };
        cli::Gate gate;
        gate.fail_on = fail_on("error");
        CHECK(cli::gate_status({warning}, gate) == 0);
        gate.fail_on = fail_on("warning");
        CHECK(cli::gate_status({warning}, gate) == 1);
        gate.fail_on = fail_on("CW012,CW010");
        CHECK(cli::gate_status({warning}, gate) == 1);
        gate.fail_on = fail_on("CW012");
        CHECK(cli::gate_status({warning}, gate) == 0);
        CHECK(cli::FailOn::parse("CW999").error() ==
              "\"CW999\" is neither a level (error, warning, info, none) nor a rule id");
        CHECK(cli::FailOn::parse("none").has_value());
        // Rule ids are read as the rules spell them, spaces and empty items
        // dropped; a list of nothing is refused.
        const auto ids = fail_on(" cw012 , CW010,");
        CHECK(ids.ids == std::vector<std::string>{"CW012", "CW010"});
        CHECK(ids.text == "CW012,CW010");
        CHECK(cli::FailOn::parse(", ,").error() ==
              "\", ,\" is neither a level (error, warning, info, none) nor a rule id");
        CHECK(cli::FailOn::parse("warning,CW010").error() ==
              "\"warning,CW010\": one level (error, warning, info, none) or a list of rule ids "
              "(\"warning\" is a level)");

        test::TempFile baseline(
            R"({"findings":[{"rule":"CW010","file":"t.json","kind":null,"location":{"path":"system[0]"},"excerpt":null}],"totals":{"hit_rate":0.9}})",
            "baseline.json");
        const auto read = cli::read_baseline(baseline.path(), "");
        gate.fail_on = fail_on("warning");
        gate.baseline = &read;
        CHECK(cli::new_findings({warning}, gate).empty());
        analysis::Finding other = warning;
        other.location.path = "system[1]";
        CHECK(cli::new_findings({warning, other}, gate).size() == 1);
        gate.max_regression = 5;
        CHECK(cli::gate_status({}, gate, 0.86) == 0);
        CHECK(cli::gate_status({}, gate, 0.80) == 1);

        // An audit of a log without usage writes a null hit rate: not a 0% to
        // compare against, an error that says why.
        test::TempFile unreported(R"({"findings":[],"totals":{"hit_rate":null}})", "null.json");
        const auto null_rate = cli::read_baseline(unreported.path(), "");
        gate.baseline = &null_rate;
        CHECK(error_of([&] {
                  (void)cli::gate_status({}, gate, 0.80);
              }).find("null when no request reported usage") != std::string::npos);
    }
}
