#include "analysis/miss_diagnosis.hpp"
#include "analysis_helpers.hpp"

#include <doctest/doctest.h>

using namespace cachewise;

namespace {

std::string
system_text(const std::string& tail)
{
    std::string s = "\"You are a careful coding agent. ";
    for (int i = 0; i < 200; ++i) {
        s += "Rule " + std::to_string(i) + ": keep each change small and explain it. ";
    }
    return s + tail + "\"";
}

const std::string k_messages = R"([{"role":"user","content":"Fix the failing test."}])";

// An exchange record whose response carries Anthropic's diagnostics.
std::string
with_reason(const std::string& id, int second, const std::string& system, const char* reason)
{
    const std::string diagnostics =
        reason == nullptr ? std::string()
                          : fmt::format(R"(,"diagnostics":{{"cache_miss_reason":{}}})", reason);
    return fmt::format(
        R"({{"id":"{}","session":"s","started_at":"2026-11-20T10:00:{:02}Z","request":{},"response":{{"id":"msg_{}","type":"message","usage":{{"input_tokens":10,"output_tokens":1}}{}}}}})",
        id, second, test::body(system, k_messages), id, diagnostics);
}

analysis::DiagnosisSummary
compare(const std::vector<std::string>& lines)
{
    std::string text;
    for (const auto& l : lines) {
        text += l + "\n";
    }
    test::TempFile file(text);
    model::TextStore texts;
    ingest::LoadOptions options;
    options.text_store = &texts;
    ingest::Loader loader(test::rules(), options);
    analysis::Analyzer analyzer(test::rules(), {}, texts);
    analysis::DiagnosisCollector diagnoses;
    const auto load = loader.load({file.path()}, [&](model::Request&& r) {
        diagnoses.note(r);
        analyzer.add(std::move(r));
    });
    REQUIRE(load.error_count == 0);
    return diagnoses.compare(analyzer.finish());
}

} // namespace

TEST_SUITE("analysis::miss_diagnosis")
{
    TEST_CASE("the provider's reasons are counted against cachewise's causes")
    {
        const auto s = compare({
            with_reason("r1", 0, system_text("v1"), nullptr),
            with_reason("r2", 10, system_text("v1"), "null"),               // no miss: agree
            with_reason("r3", 20, system_text("v2"), "\"system_changed\""), // agree
            with_reason("r4", 30, system_text("v2"), "\"tools_changed\""),  // disagree
            with_reason("r5", 40, system_text("v2"), "\"unavailable\""),    // not comparable
        });
        CHECK(s.with_diagnosis == 4);
        CHECK(s.agree == 2);
        CHECK(s.disagree == 1);
        CHECK(s.not_comparable == 1);
        REQUIRE(s.entries.size() == 4);
        CHECK(s.entries[0].provider_reason == "none");
        CHECK(s.entries[0].own_cause == "none");
        CHECK(s.entries[1].own_cause == "system_changed");
        CHECK(s.entries[2].own_cause == "none");
        REQUIRE(s.findings.size() == 1);
        CHECK(s.findings[0].rule == "CW032");
        CHECK(s.findings[0].request == "r4");
        CHECK(s.findings[0].kind == "tools_changed");
        CHECK(s.findings[0].message ==
              "the provider's cache_miss_reason is tools_changed, cachewise found none against "
              "r3: either the simulation or the provider's cache behaves otherwise than "
              "documented");
    }

    TEST_CASE("a log without diagnostics has nothing to compare")
    {
        const auto s = compare({with_reason("r1", 0, system_text("v1"), nullptr),
                                with_reason("r2", 10, system_text("v1"), nullptr)});
        CHECK(s.with_diagnosis == 0);
        CHECK(s.entries.empty());
    }

    TEST_CASE("streamed responses carry the reason in message_start or in an event")
    {
        const std::string sse =
            R"(event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"usage\":{\"input_tokens\":10,\"output_tokens\":1},\"diagnostics\":{\"cache_miss_reason\":\"tools_changed\"}}}\n\n)";
        const std::string record = fmt::format(R"({{"id":"r1","request":{},"response":"{}"}})",
                                               test::body(system_text("v1"), k_messages), sse);
        const std::string events = fmt::format(
            R"({{"id":"r2","request":{},"response":[{{"type":"message_start","message":{{"id":"m","usage":{{"input_tokens":10,"output_tokens":0}}}}}},{{"type":"message_delta","usage":{{"output_tokens":1}},"diagnostics":{{"cache_miss_reason":null}}}}]}})",
            test::body(system_text("v1"), k_messages));
        test::TempFile file(record + "\n" + events + "\n");
        ingest::Loader loader(test::rules(), {});
        std::vector<model::Request> requests;
        const auto load = loader.load(
            {file.path()}, [&](model::Request&& r) { requests.push_back(std::move(r)); });
        REQUIRE(load.error_count == 0);
        REQUIRE(requests.size() == 2);
        CHECK(requests[0].provider_miss_reason == std::optional<std::string>("tools_changed"));
        CHECK(requests[1].provider_miss_reason == std::optional<std::string>(""));
    }
}
