// Findings a careful engineer would sign, on fixtures modelled on the real
// third-party logs in ../shared/formats (tests/data/prompts/README.md says
// which log each one imitates). Each case lists what must and must not be
// reported.

#include "account/auditor.hpp"
#include "advise/suggest.hpp"
#include "analysis/rule_catalogue.hpp"
#include "helpers.hpp"

#include <doctest/doctest.h>

#include <algorithm>

using namespace cachewise;

namespace {

std::string
fixture(const std::string& name)
{
    return std::string(CACHEWISE_SOURCE_DIR) + "/tests/data/prompts/" + name;
}

struct Run {
    account::AuditResult audit;
    std::vector<analysis::Finding> all; // audit findings, analysis breaks, dynamic, latent
};

Run
run(const std::string& name)
{
    model::TextStore texts;
    ingest::LoadOptions options;
    options.text_store = &texts;
    ingest::Loader loader(test::rules(), options);
    std::vector<model::Request> requests;
    const auto load =
        loader.load({fixture(name)}, [&](model::Request&& r) { requests.push_back(std::move(r)); });
    REQUIRE(load.error_count == 0);
    Run out;
    out.audit = account::audit(std::move(requests), texts, test::rules(), {});
    out.all = out.audit.findings;
    const auto& a = out.audit.analysis;
    out.all.insert(out.all.end(), a.dynamic_fields.begin(), a.dynamic_fields.end());
    out.all.insert(out.all.end(), a.latent.begin(), a.latent.end());
    return out;
}

std::size_t
count(const Run& r, std::string_view rule)
{
    return static_cast<std::size_t>(std::count_if(
        r.all.begin(), r.all.end(), [&](const analysis::Finding& f) { return f.rule == rule; }));
}

const analysis::RequestOutcome&
outcome(const Run& r, std::string_view id)
{
    const auto& list = r.audit.analysis.outcomes;
    const auto it = std::find_if(list.begin(), list.end(),
                                 [&](const analysis::RequestOutcome& o) { return o.id == id; });
    REQUIRE(it != list.end());
    return *it;
}

} // namespace

TEST_SUITE("analysis::real prompts")
{
    TEST_CASE("a LiteLLM log of Claude without cache_control: CW011, and prose is not a time")
    {
        // OpenHands' tool text says "One command at a time: You can only ...".
        const Run r = run("litellm-claude-no-cache.jsonl");
        CHECK(count(r, "CW010") == 0);
        REQUIRE(count(r, "CW011") == 1);
        const auto& f = *std::find_if(r.all.begin(), r.all.end(),
                                      [](const auto& g) { return g.rule == "CW011"; });
        CHECK(f.occurrences == 2);
        CHECK(f.tokens_lost == 2400 + 2550); // shared by requests 2 and 3
        CHECK(r.audit.analysis.breaks == 0);
        CHECK(r.audit.totals.priced == 3);
    }

    TEST_CASE("an agent trajectory with code, paths, versions, hashes and dates in history")
    {
        // f"attempt {i}", /testbed paths, requests 2.3.0, a commit hash and an
        // ISO date in tool output, epoch seconds in the task: all history.
        const Run r = run("swe-agent-code-task.traj.json");
        CHECK(count(r, "CW010") == 0);
        CHECK(count(r, "CW001") == 0);
        CHECK(r.audit.analysis.extends == 2);
    }

    TEST_CASE("a date in the system prompt, a side call on a small model, a model switch")
    {
        const Run r = run("agent-date-side-call-switch.jsonl");
        // The date is the same on every request of the log, yet it changes at
        // midnight: reported once, with what it spoils.
        REQUIRE(r.audit.analysis.dynamic_fields.size() == 1);
        const auto& date = r.audit.analysis.dynamic_fields.front();
        CHECK(date.kind == "date");
        CHECK(date.location.path == "system[0]");
        CHECK(date.excerpt->now.find("«2026-11-20»") != std::string::npos);
        // The title generator is a side call in a sub-stream of its own: never
        // a break, never the partner of the main conversation.
        const auto& title = outcome(r, "fg-title");
        CHECK(title.stream == "s1/claude-haiku-4-5");
        CHECK(title.status == analysis::RequestOutcome::Status::cold);
        const auto& next = outcome(r, "fg-2");
        CHECK(next.partner == "fg-1");
        CHECK(next.status == analysis::RequestOutcome::Status::extends);
        // The conversation goes on with another model: that is CW005 model.
        REQUIRE(r.audit.analysis.findings.size() == 1);
        const auto& f = r.audit.analysis.findings.front();
        CHECK(f.rule == "CW005");
        CHECK(f.kind == "model");
        CHECK(f.request == "fg-3");
        CHECK(f.partner == "fg-2");
        CHECK(count(r, "CW005") == 1);
    }

    TEST_CASE("a recording without timestamps: replayed in order, timing not judged")
    {
        const Run r = run("untimed-recording.jsonl");
        CHECK(count(r, "CW020") == 0);
        CHECK(count(r, "CW021") == 0);
        CHECK(count(r, "CW023") == 0);
        CHECK(count(r, "CW024") == 0);
        CHECK(count(r, "CW031") == 0); // the read the provider reported is what was expected
        REQUIRE(r.audit.requests.size() == 2);
        // Read as reported, within the token estimate (not "concurrent": 0).
        CHECK(r.audit.requests[1].expected.read > 1150);
        REQUIRE(!r.audit.notes.empty());
        CHECK(r.audit.notes.front().find("timing not judged") != std::string::npos);
        // A new question on the same head is a new conversation, not CW001.
        CHECK(outcome(r, "vcr-2").status == analysis::RequestOutcome::Status::branched);
    }
}
