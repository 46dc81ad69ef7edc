#include "cli/disabled_rules.hpp"

#include <doctest/doctest.h>

using namespace cachewise;

namespace {

analysis::Finding
finding(const char* rule, const char* request)
{
    analysis::Finding f;
    f.rule = rule;
    f.request = request;
    return f;
}

} // namespace

TEST_SUITE("cli: disabled rules")
{
    TEST_CASE("an audit's rows point at the same findings after the disabled ones are dropped")
    {
        account::AuditResult r;
        r.findings = {finding("CW010", "a"), finding("CW020", "b"), finding("CW031", "b"),
                      finding("CW023", "c")};
        r.requests.resize(3);
        r.requests[0].findings = {0};
        r.requests[1].findings = {1, 2};
        r.requests[2].findings = {3};
        const std::set<std::string> off{"CW010", "CW031"};
        CHECK(cli::drop_disabled(r, off) == 2);
        REQUIRE(r.findings.size() == 2);
        CHECK(r.findings[0].rule == "CW020");
        CHECK(r.findings[1].rule == "CW023");
        CHECK(r.requests[0].findings.empty());
        CHECK(r.requests[1].findings == std::vector<std::size_t>{0});
        CHECK(r.requests[2].findings == std::vector<std::size_t>{1});
    }

    TEST_CASE("an analysis loses the disabled rule's breaks, fields, latent findings and causes")
    {
        analysis::AnalysisResult r;
        r.findings = {finding("CW003", "a"), finding("CW010", "b")};
        r.dynamic_fields = {finding("CW010", "c"), finding("CW040", "c")};
        r.latent = {finding("CW010", "d")};
        r.causes = {{.rule = "CW003"}, {.rule = "CW010"}};
        r.outcomes.resize(2);
        r.outcomes[0].finding = 0;
        r.outcomes[1].finding = 1;
        r.tokens_lost = 500;
        CHECK(cli::drop_disabled(r, {"CW010"}) == 3);
        CHECK(r.findings.size() == 1);
        CHECK(r.outcomes[0].finding == std::optional<std::size_t>(0));
        CHECK_FALSE(r.outcomes[1].finding.has_value());
        CHECK(r.dynamic_fields.size() == 1);
        CHECK(r.latent.empty());
        REQUIRE(r.causes.size() == 1);
        CHECK(r.causes[0].rule == "CW003");
        CHECK(r.tokens_lost == 500); // the totals stay what the log shows
    }

    TEST_CASE("nothing disabled: nothing dropped")
    {
        account::AuditResult r;
        r.findings = {finding("CW010", "a")};
        CHECK(cli::drop_disabled(r, {}) == 0);
        CHECK(r.findings.size() == 1);
    }
}
