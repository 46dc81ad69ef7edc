#include "report/lint_printer.hpp"

#include <doctest/doctest.h>

#include <sstream>

using namespace cachewise;

namespace {

std::string
last_line(const std::string& text)
{
    const auto end = text.find_last_not_of('\n');
    const auto start = text.rfind('\n', end);
    return text.substr(start == std::string::npos ? 0 : start + 1, end - start);
}

} // namespace

TEST_SUITE("report::lint_printer")
{
    TEST_CASE("the summary line counts files and findings with plurals and separators")
    {
        advise::LintResult result;
        result.files = 1;
        std::ostringstream one;
        report::print_lint({result, nullptr, std::nullopt}, report::Format::text, one);
        CHECK(one.str() == "1 file linted · 0 findings\n");

        result.files = 1200;
        analysis::Finding fresh;
        fresh.rule = "CW010";
        fresh.name = "dynamic-field";
        fresh.file = "t.json";
        fresh.line = 11;
        fresh.column = 29;
        fresh.location.path = "system[1]";
        result.findings.push_back(fresh);
        const std::vector<analysis::Finding> new_ones = {fresh};
        std::ostringstream many;
        report::print_lint({result, &new_ones, report::ExactCountSummary{1, 1000, 2}},
                           report::Format::text, many);
        // The count, then the new findings by name and place.
        CHECK(many.str().find("1,200 files linted · 1 finding (1 new since the baseline) · "
                              "exact counts: 1 prefix, 1,000 calls to count tokens, 2 "
                              "from the cache\n") != std::string::npos);
        CHECK(last_line(many.str()) == "  new: t.json:11:29 CW010 dynamic-field at system[1]");
    }
}
