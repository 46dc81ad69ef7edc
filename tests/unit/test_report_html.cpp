#include "analysis/rule_catalogue.hpp"
#include "helpers.hpp"
#include "report/html_data.hpp"
#include "report/html_escape.hpp"
#include "report/html_report.hpp"
#include "report/svg_chart.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <sstream>

using namespace cachewise;
using namespace cachewise::report;

namespace {

// An audit of `n` requests in `streams` streams, one every `step` seconds,
// each reading 900 and writing 100 tokens.
account::AuditResult
synthetic_audit(std::size_t n, std::size_t streams, std::int64_t step)
{
    account::AuditResult r;
    for (std::size_t i = 0; i < n; ++i) {
        account::RequestAudit a;
        a.id = fmt::format("req_{}", i);
        a.stream = fmt::format("s{}", i % streams);
        a.model = "claude-sonnet-4-5";
        a.policy = "anthropic";
        a.started_at = Timestamp{static_cast<std::int64_t>(i) * step * 1'000'000};
        a.reported = account::Split{900, 100, 0, 0, 10};
        a.expected = *a.reported;
        a.simulated = true;
        r.totals.add(a);
        r.requests.push_back(std::move(a));
    }
    return r;
}

std::string
render(const HtmlReport& report)
{
    std::ostringstream out;
    print_html(report, out);
    return out.str();
}

std::size_t
count(const std::string& text, const std::string& needle)
{
    std::size_t n = 0;
    for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) {
        ++n;
    }
    return n;
}

} // namespace

TEST_SUITE("report::html_escape")
{
    TEST_CASE("log text cannot close a tag, an attribute or a script")
    {
        CHECK(html_escape("</script><b onclick='x'>\"a\" & b") ==
              "&lt;/script&gt;&lt;b onclick=&#39;x&#39;&gt;&quot;a&quot; &amp; b");
        CHECK(html_escape("tab\tand\nnewline stay") == "tab\tand\nnewline stay");
        CHECK(html_escape(std::string("nul\0bell\a", 9)) == "nul\xEF\xBF\xBD"
                                                            "bell\xEF\xBF\xBD");
    }

    TEST_CASE("an excerpt's changed part is marked, and escaped like the rest")
    {
        CHECK(html_excerpt("…time 14:03«<12>»Z…") == "…time 14:03<mark>&lt;12&gt;</mark>Z…");
        CHECK(html_excerpt("no markers <x>") == "no markers &lt;x&gt;");
        CHECK(html_excerpt("only «open") == "only «open");
        CHECK(html_excerpt("«»end") == "<mark></mark>end");
    }

    TEST_CASE("ids keep letters, digits, dash and underscore")
    {
        CHECK(html_id("CW020") == "CW020");
        CHECK(html_id("a b/c\"d") == "a-b-c-d");
    }
}

TEST_SUITE("report::svg_chart")
{
    TEST_CASE("ticks are round and cover the maximum")
    {
        CHECK(nice_ticks(95, 4) == std::vector<double>{0, 50, 100});
        CHECK(nice_ticks(10'000, 5) == std::vector<double>{0, 2000, 4000, 6000, 8000, 10'000});
        CHECK(nice_ticks(0, 4) == std::vector<double>{0});
    }

    TEST_CASE("time ticks fall on steps a clock reads well")
    {
        CHECK(time_ticks(600, 8) == std::vector<double>{0, 120, 240, 360, 480, 600});
        CHECK(time_ticks(7 * 3600, 8) ==
              std::vector<double>{0, 3600, 7200, 10800, 14400, 18000, 21600, 25200});
        CHECK(time_ticks(20 * 86400, 4).at(1) == 5 * 86400);
    }

    TEST_CASE("axis labels")
    {
        CHECK(short_duration(45) == "45s");
        CHECK(short_duration(720) == "12m");
        CHECK(short_duration(447) == "7m27s");
        CHECK(short_duration(3 * 3600 + 5 * 60) == "3h05m");
        CHECK(short_duration(2 * 86400 + 4 * 3600) == "2d4h");
        CHECK(short_count(950) == "950");
        CHECK(short_count(1500) == "1.5k");
        CHECK(short_count(2'300'000) == "2.3M");
    }
}

TEST_SUITE("report::html_data")
{
    TEST_CASE("idle gaps beyond the provider's TTL are marked, shorter ones are not")
    {
        auto r = synthetic_audit(3, 1, 100);
        r.requests[2].started_at = Timestamp{600 * 1'000'000LL}; // 500 s after the 2nd
        const auto report = html_from_audit(r, &test::rules(), {});
        REQUIRE(report.lanes.size() == 1);
        REQUIRE(report.lanes[0].gaps.size() == 1);
        CHECK(report.lanes[0].gaps[0].from == 100);
        CHECK(report.lanes[0].gaps[0].to == 600);
        CHECK(report.lanes[0].gaps[0].ttl == 300); // anthropic 5m, from the rules
        CHECK(html_from_audit(r, nullptr, {}).lanes[0].gaps.empty());
    }

    TEST_CASE("a 1h write keeps the entry for an hour")
    {
        auto r = synthetic_audit(2, 1, 1000);
        r.requests[0].reported = account::Split{0, 0, 1000, 0, 10};
        CHECK(html_from_audit(r, &test::rules(), {}).lanes[0].gaps.empty());
    }

    TEST_CASE("a long stream is drawn as buckets of consecutive requests, and says so")
    {
        const auto r = synthetic_audit(1000, 1, 10);
        HtmlLimits limits;
        limits.bars_per_lane = 100;
        const auto report = html_from_audit(r, &test::rules(), limits);
        REQUIRE(report.lanes.size() == 1);
        CHECK(report.lanes[0].bars.size() == 100);
        CHECK(report.lanes[0].bars[0].requests == 10);
        CHECK(report.lanes[0].bars[0].parts[0] == 9000);
        CHECK(report.lanes[0].bars[0].label == "req_0 … req_9 (10 requests)");
        REQUIRE(!report.aggregated.empty());
        CHECK(report.aggregated[0] == "timeline: 1,000 requests of s0 drawn as 100 bars of "
                                      "consecutive requests");
    }

    TEST_CASE("streams past the limit share the last lane")
    {
        auto r = synthetic_audit(40, 20, 10);
        r.requests.push_back(r.requests[0]); // s0 has the most requests
        HtmlLimits limits;
        limits.lanes = 5;
        const auto report = html_from_audit(r, &test::rules(), limits);
        REQUIRE(report.lanes.size() == 5);
        CHECK(report.lanes[0].stream == "s0");
        CHECK(report.lanes[4].stream == "16 other streams");
        CHECK(report.lanes[4].requests == 32);
    }

    TEST_CASE("hit rate by hour when the log spans hours, by runs of requests otherwise")
    {
        const auto hours = html_from_audit(synthetic_audit(10, 1, 3600), nullptr, {});
        CHECK(hours.hit_bucket == "hour");
        REQUIRE(hours.hit_series.size() == 1);
        CHECK(hours.hit_series[0].buckets.size() == 10);
        CHECK(hours.hit_series[0].buckets[1].label == "1970-01-01 01:00");
        CHECK(hours.hit_series[0].buckets[1].read == 900);
        CHECK(hours.hit_series[0].buckets[1].input == 1000);

        HtmlLimits limits;
        limits.hit_buckets = 4;
        const auto runs = html_from_audit(synthetic_audit(10, 1, 10), nullptr, limits);
        CHECK(runs.hit_bucket == "requests");
        REQUIRE(runs.hit_series[0].buckets.size() == 4);
        CHECK(runs.hit_series[0].buckets[0].label == "1–3");
        CHECK(runs.hit_series[0].buckets[3].label == "10");
    }

    TEST_CASE("the waterfall's placement step is not computed rather than invented")
    {
        const auto report = html_from_audit(synthetic_audit(2, 1, 10), nullptr, {});
        REQUIRE(report.waterfall.size() == 6);
        CHECK(report.waterfall[4].id == "placement");
        CHECK(!report.waterfall[4].usd);

        const auto none =
            html_from_audit(synthetic_audit(2, 1, 10), nullptr, {}, PlacementReplay{0, 0, 0});
        CHECK(!none.waterfall[4].usd);
        CHECK(none.waterfall[4].note == "not computed: no template family with a price to replay");
    }

    TEST_CASE("--by: the groups with the most requests, in key order, and a note when cut")
    {
        auto r = synthetic_audit(12, 4, 10);
        r.requests.push_back(r.requests[1]); // s1: 4 requests
        r.requests.push_back(r.requests[2]); // s2: 4 requests
        HtmlLimits limits;
        limits.groups = 2;
        const auto report = html_from_audit(r, nullptr, limits, std::nullopt, "stream");
        CHECK(report.by == "stream");
        REQUIRE(report.groups.size() == 2);
        CHECK(report.groups[0].key == "s1");
        CHECK(report.groups[1].key == "s2");
        CHECK(report.groups[0].requests == 4);
        CHECK(report.groups[0].hit_rate.value_or(-1) == doctest::Approx(0.9));
        CHECK(!report.groups[0].actual_usd); // nothing priced
        CHECK(!report.groups[0].reported_cost_usd);
        CHECK(report.groups_total == 4);

        // A request of an unpriced model whose log gives its cost: that cost.
        r.requests[1].reported_cost_usd = 0.25;
        const auto with_cost = html_from_audit(r, nullptr, limits, std::nullopt, "stream");
        CHECK(with_cost.groups[0].reported_cost_usd.value_or(0) == doctest::Approx(0.25));
        CHECK(report.aggregated.back() == "by stream: the 2 of 4 groups with the most requests");
    }

    TEST_CASE("the placement step is suggest's replayed saving when there is one")
    {
        auto r = synthetic_audit(2, 1, 10);
        r.totals.priced = 2;
        const auto report = html_from_audit(r, nullptr, {}, PlacementReplay{0.5, 0.375, 2});
        REQUIRE(report.waterfall[4].usd);
        CHECK(*report.waterfall[4].usd == -0.125);
        CHECK(report.waterfall[4].json == "suggest:saving");
        CHECK(report.waterfall[4].note == "suggest's placement replayed on 2 template families: "
                                          "input 0.500000 → 0.375000 USD, simulated");
    }

    TEST_CASE("findings: the costliest first, anchors from their index, causes summed by rule")
    {
        auto r = synthetic_audit(2, 1, 10);
        for (const double cost : {0.1, 0.5, 0.2}) {
            analysis::Finding f;
            f.rule = cost == 0.5 ? "CW020" : "CW001";
            f.name = "x";
            f.cost_usd = cost;
            f.tokens_lost = 100;
            r.findings.push_back(f);
        }
        HtmlLimits limits;
        limits.findings = 2;
        const auto report = html_from_audit(r, nullptr, limits);
        REQUIRE(report.findings.size() == 2);
        CHECK(report.findings[0].anchor == "f-1");
        CHECK(report.findings[1].anchor == "f-2");
        CHECK(report.findings_total == 3);
        REQUIRE(report.causes.size() == 2);
        CHECK(report.causes[0].rule == "CW020");
        CHECK(report.causes[1].rule == "CW001");
        CHECK(report.causes[1].tokens_lost == 200);
        CHECK(report.causes[1].first_anchor == "f-2");
    }

    TEST_CASE("a rotated credential's break (CW010 credential) carries CW040's fix")
    {
        auto r = synthetic_audit(2, 1, 10);
        analysis::Finding key;
        key.rule = "CW010";
        key.name = "dynamic-field";
        key.kind = "credential";
        r.findings.push_back(key);
        analysis::Finding date = key;
        date.kind = "date";
        r.findings.push_back(date);
        const auto report = html_from_audit(r, nullptr, HtmlLimits{});
        REQUIRE(report.findings.size() == 2);
        CHECK(report.findings[0].fix == std::string(analysis::rule_info("CW040").fix));
        CHECK(report.findings[1].fix == std::string(analysis::rule_info("CW010").fix));
        REQUIRE(report.causes.size() == 1);
        CHECK(report.causes[0].fix ==
              std::string(analysis::rule_info("CW010").fix)); // the row mixes both
    }
}

TEST_SUITE("report::html_data (analyze)")
{
    TEST_CASE("breaks and dynamic fields are numbered as --format json lists them")
    {
        analysis::AnalysisResult r;
        r.requests = 3;
        r.streams = 1;
        r.input_tokens = 3000;
        r.shared_tokens = 1500;
        for (int i = 0; i < 3; ++i) {
            analysis::RequestOutcome o;
            o.id = fmt::format("r{}", i);
            o.stream = "s";
            o.prompt_tokens = 1000;
            o.shared_tokens = i == 0 ? 0 : 750;
            r.outcomes.push_back(o);
        }
        analysis::Finding brk;
        brk.rule = "CW001";
        brk.tokens_lost = 250;
        brk.cost_usd = 0.001;
        r.findings.push_back(brk);
        r.outcomes[2].finding = 0;
        analysis::Finding dynamic;
        dynamic.rule = "CW010";
        dynamic.tokens_lost = 900; // would spoil, uncosted: after the break
        r.dynamic_fields.push_back(dynamic);
        r.causes.push_back({"CW001", "prefix-changed", 1, 250, 0.001, {}});

        const auto report = html_from_analysis(r, {});
        REQUIRE(report.findings.size() == 2);
        CHECK(report.findings[0].anchor == "f-0");
        CHECK(report.findings[1].anchor == "f-1");
        REQUIRE(report.causes.size() == 1);
        CHECK(report.causes[0].first_anchor == "f-0");
        CHECK(report.waterfall.empty());
        CHECK(report.hit_label == "reuse potential");
        REQUIRE(report.lanes.size() == 1);
        CHECK(!report.time_axis);
        CHECK(report.lanes[0].bars[2].parts[0] == 750);
        CHECK(report.lanes[0].bars[2].parts[3] == 250);
        CHECK(report.lanes[0].bars[2].breaks == std::vector<std::string>{"f-0"});
        REQUIRE(report.cards.size() >= 2);
        CHECK(report.cards[1].id == "reuse");
        CHECK(report.cards[1].value == "50.0%");
        CHECK(report.cards[1].json == "summary.reuse_potential");
    }
}

TEST_SUITE("report::html_report")
{
    TEST_CASE("the page needs nothing outside itself and escapes every log string")
    {
        auto r = synthetic_audit(3, 1, 10);
        r.requests[0].stream = "</script><script>alert(1)</script>";
        analysis::Finding f;
        f.rule = "CW001";
        f.name = "prefix-changed";
        f.request = "req_0";
        f.excerpt = analysis::Excerpt{"was «\"old\"» <b>", "now «'new'» </pre>"};
        r.findings.push_back(f);
        const std::string page = render(html_from_audit(r, nullptr, {}));
        CHECK(page.find("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src "
                        "'none';") != std::string::npos);
        CHECK(page.find("alert(1)</script>") == std::string::npos);
        CHECK(page.find("&lt;/script&gt;&lt;script&gt;alert(1)") != std::string::npos);
        CHECK(page.find("was <mark>&quot;old&quot;</mark> &lt;b&gt;") != std::string::npos);
        CHECK(page.find("now <mark>&#39;new&#39;</mark> &lt;/pre&gt;") != std::string::npos);
        // The only address is SVG's namespace, which is a name, not a fetch.
        CHECK(count(page, "http://") == count(page, "http://www.w3.org/2000/svg"));
        CHECK(count(page, "https://") == 0);
        CHECK(count(page, " src=") == 0);
        for (const char* view :
             {"summary", "waterfall", "timeline", "hit-rate", "causes", "breaks"}) {
            CHECK(page.find(fmt::format("<section id=\"{}\" class=\"view\">", view)) !=
                  std::string::npos);
        }
    }

    TEST_CASE("100,000 requests stay under 2 MB")
    {
        const auto r = synthetic_audit(100'000, 300, 3);
        const std::string page = render(html_from_audit(r, &test::rules(), {}));
        CHECK(page.size() < 2'000'000);
        CHECK(page.find("the 289 streams with the fewest requests share the last lane") !=
              std::string::npos);
    }
}
