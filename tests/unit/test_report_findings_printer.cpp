#include "report/findings_printer.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <sstream>

using namespace cachewise;

TEST_SUITE("report::findings_printer")
{
    TEST_CASE("a fingerprint leaves out what shifts between runs, and a log's file")
    {
        analysis::Finding f;
        f.rule = "CW003";
        f.kind = "reordered";
        f.location.path = "tools[0]";
        f.file = "logs/2026-12-01.jsonl";
        f.stream = "s3";
        f.request = "a3";
        f.line = 3;
        analysis::Finding rotated = f;
        rotated.file = "logs/2026-12-02.jsonl";
        rotated.request = "b7";
        rotated.line = 40;
        CHECK(report::fingerprint(f) == report::fingerprint(rotated));

        // A template's findings are its own: another file is another finding.
        analysis::Finding mine = f;
        mine.stream.clear();
        analysis::Finding other = mine;
        other.file = "templates/other.json";
        CHECK(report::fingerprint(mine) != report::fingerprint(other));
        analysis::Finding moved = f;
        moved.location.path = "tools[1]";
        CHECK(report::fingerprint(f) != report::fingerprint(moved));
    }

    TEST_CASE("a fingerprint holds an excerpt's marked value, not the text around it")
    {
        analysis::Finding f;
        f.rule = "CW010";
        f.kind = "placeholder";
        f.file = "t.json";
        f.location.path = "system[0]";
        f.excerpt = analysis::Excerpt{"", "chatting with \u00ab{{user_name}}\u00bb ({{email}})"};
        analysis::Finding beside = f;
        beside.excerpt->now = "chatting with \u00ab{{user_name}}\u00bb at {{generated_at}}";
        CHECK(report::fingerprint(f) == report::fingerprint(beside));
        analysis::Finding other = f;
        other.excerpt->now = "chatting with \u00ab{{locale}}\u00bb ({{email}})";
        CHECK(report::fingerprint(f) != report::fingerprint(other));
    }

    TEST_CASE("findings of several requests on one line: SARIF keeps them apart, GitHub names them")
    {
        // Several requests on one line (bodies in a one-line JSON array),
        // each with a usage finding and no text of its own.
        analysis::Finding a;
        a.rule = "CW031";
        a.location.path = "usage";
        a.file = "run.traj.json";
        a.stream = "run";
        a.request = "run.traj.json#16";
        a.line = 1;
        analysis::Finding b = a;
        b.request = "run.traj.json#60";
        // The baseline counts them as one finding that recurs.
        CHECK(report::fingerprint(a) == report::fingerprint(b));

        std::ostringstream sarif;
        report::print_sarif({a, b}, sarif);
        const auto results = nlohmann::json::parse(sarif.str())["runs"][0]["results"];
        REQUIRE(results.size() == 2);
        CHECK(results[0]["partialFingerprints"] != results[1]["partialFingerprints"]);

        std::ostringstream github;
        report::print_github({a, b}, github);
        CHECK(github.str().find("::request #16 · usage: ") != std::string::npos);
        CHECK(github.str().find("::request #60 · usage: ") != std::string::npos);
        // One request on its line: the line says which.
        std::ostringstream alone;
        report::print_github({a}, alone);
        CHECK(alone.str().find("request #16") == std::string::npos);
    }
}
