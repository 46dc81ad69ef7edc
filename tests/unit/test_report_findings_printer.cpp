#include "report/findings_printer.hpp"

#include <doctest/doctest.h>

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
}
