#include "../support/fake_provider.hpp"
#include "advise/lint.hpp"
#include "cli/lint_inputs.hpp"
#include "helpers.hpp"
#include "ingest/loader.hpp"
#include "live/exact_counter.hpp"
#include "live/exact_pin.hpp"
#include "util/file.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>

using namespace cachewise;

namespace {

const std::string k_template = std::string(CACHEWISE_SOURCE_DIR) + "/samples/request-template.json";

model::Request
read_one(const std::string& path)
{
    ingest::LoadOptions o;
    o.format = ingest::InputFormat::request;
    ingest::Loader loader(test::rules(), o);
    std::vector<model::Request> out;
    loader.load({path}, [&](model::Request&& r) { out.push_back(std::move(r)); });
    REQUIRE(out.size() == 1);
    return std::move(out.front());
}

std::size_t
count_rule(const advise::LintResult& r, const std::string& rule, const std::string& kind)
{
    std::size_t n = 0;
    for (const auto& f : r.findings) {
        n += f.rule == rule && f.kind == kind ? 1 : 0;
    }
    return n;
}

} // namespace

TEST_SUITE("live::exact_counter")
{
    TEST_CASE("a prefix body keeps what comes before the block and ends there")
    {
        const test::TempFile file(
            R"({"model":"claude-sonnet-4-5","max_tokens":5,"tools":[{"name":"a","input_schema":{}},{"name":"b","input_schema":{}}],"system":[{"type":"text","text":"S0"},{"type":"text","text":"S1"}],"messages":[{"role":"user","content":[{"type":"text","text":"U0"},{"type":"text","text":"U1"}]},{"role":"assistant","content":"A"}]})",
            "body.json");
        const auto r = read_one(file.path());
        const std::string text = value_or_throw(read_file(file.path()), "");
        bool baseline = false;
        // tools[0]: the first tool alone, with a "." message counted separately.
        auto b = live::prefix_body(text, r, 0, baseline);
        REQUIRE(b);
        CHECK(baseline);
        CHECK(
            *b ==
            R"({"model":"claude-sonnet-4-5","tools":[{"name":"a","input_schema":{}}],"messages":[{"role":"user","content":"."}]})");
        // messages[0].content[0]: the first user block, no baseline.
        std::size_t k = 0;
        while (r.segments[k].path.str() != "messages[0].content[0]") {
            ++k;
        }
        b = live::prefix_body(text, r, k, baseline);
        REQUIRE(b);
        CHECK_FALSE(baseline);
        const auto j = nlohmann::json::parse(*b);
        CHECK(j["system"].size() == 2);
        CHECK(j["messages"].size() == 1);
        CHECK(j["messages"][0]["content"].size() == 1);
        CHECK_FALSE(j.contains("max_tokens"));
        CHECK(live::baseline_body(r) ==
              R"({"model":"claude-sonnet-4-5","messages":[{"role":"user","content":"."}]})");
    }

    TEST_CASE("lint --exact-tokens replaces the estimate by a count; a second run makes no call")
    {
        ::setenv("ANTHROPIC_API_KEY", "sk-ant-exact-test", 1);
        ::setenv("NO_PROXY", "127.0.0.1", 1);
        ::setenv("no_proxy", "127.0.0.1", 1);
        test::FakeProvider server(test::rules());
        const test::TempFile cache("", "unused");
        const auto dir = std::filesystem::path(cache.dir()) / "counts";
        live::HttpClient client;
        advise::LintOptions options;
        const auto estimated = cli::lint_files({k_template}, test::rules(), options);
        CHECK(count_rule(estimated, "CW012", "borderline") == 1);

        live::ExactCounter first(client, server.base_url(), std::nullopt, dir);
        options.counter = &first;
        const auto exact = cli::lint_files({k_template}, test::rules(), options);
        // 4,956 counted tokens reach the 4,096 minimum: no CW012 at all.
        CHECK(count_rule(exact, "CW012", "borderline") == 0);
        CHECK(count_rule(exact, "CW012", "exact") == 0);
        CHECK(first.prefixes() == 1);
        CHECK(first.calls() == 2); // the prefix with a "." message, and the "." message alone
        CHECK(server.calls("/v1/messages/count_tokens") == 2);

        live::ExactCounter second(client, server.base_url(), std::nullopt, dir);
        options.counter = &second;
        const auto again = cli::lint_files({k_template}, test::rules(), options);
        CHECK(again.findings.size() == exact.findings.size());
        CHECK(second.calls() == 0);
        CHECK(second.cached() == 2);
        CHECK(server.calls("/v1/messages/count_tokens") == 2);
        ::unsetenv("ANTHROPIC_API_KEY");
    }

    TEST_CASE("a counted prefix below the minimum is reported as exact")
    {
        ::setenv("ANTHROPIC_API_KEY", "sk-ant-exact-test", 1);
        ::setenv("NO_PROXY", "127.0.0.1", 1);
        ::setenv("no_proxy", "127.0.0.1", 1);
        test::FakeProvider server(test::rules());
        std::string system;
        for (int i = 0; i < 330; ++i) {
            system += "Rule " + std::to_string(i) + ": answer briefly and cite the manual. ";
        }
        const test::TempFile body(
            R"({"model":"claude-opus-4-5","max_tokens":5,"system":[{"type":"text","text":")" +
                system +
                R"(","cache_control":{"type":"ephemeral"}}],"messages":[{"role":"user","content":"Hi"}]})",
            "short.json");
        live::HttpClient client;
        live::ExactCounter counter(client, server.base_url(), std::nullopt,
                                   std::filesystem::path(body.dir()) / "counts");
        advise::LintOptions options;
        const auto estimated = cli::lint_files({body.path()}, test::rules(), options);
        REQUIRE(count_rule(estimated, "CW012", "borderline") == 1);
        options.counter = &counter;
        const auto exact = cli::lint_files({body.path()}, test::rules(), options);
        REQUIRE(count_rule(exact, "CW012", "exact") == 1);
        for (const auto& f : exact.findings) {
            if (f.rule == "CW012") {
                CHECK(f.message.find("tokens (counted by the provider; estimated") !=
                      std::string::npos);
                CHECK(f.message.find("below the claude-opus-4-5 minimum of 4,096") !=
                      std::string::npos);
            }
        }
        ::unsetenv("ANTHROPIC_API_KEY");
    }

    TEST_CASE("pinned counts: exact at the boundaries, estimates scaled between them")
    {
        // A counter that knows the answers: tools end, system end (the
        // breakpoint), the whole prompt.
        struct Known : advise::PrefixCounter {
            std::vector<std::size_t> asked;
            std::optional<std::int64_t> count_prefix(const std::string&, const model::Request& r,
                                                     std::size_t k) override
            {
                asked.push_back(k);
                const auto path = r.segments[k].path.str();
                return path == "tools[2]" ? 1000 : path == "system[1]" ? 5000 : 5020;
            }
        } known;
        auto r = read_one(k_template);
        REQUIRE(live::pin_exact_tokens(r, live::body_json_of(r), known));
        CHECK(known.asked == std::vector<std::size_t>{2, 4, 5});
        CHECK(r.segments[2].cumulative_tokens == 1000);
        CHECK(r.segments[4].cumulative_tokens == 5000);
        CHECK(r.segments[5].cumulative_tokens == 5020);
        CHECK(r.prompt_tokens() == 5020);
        // The tools keep their estimated proportions (542 : 161 : 250).
        CHECK(r.segments[0].tokens == 569);
        CHECK(r.segments[0].token_source == model::TokenSource::calibrated);
    }

    TEST_CASE("OpenAI Responses prefixes are counted at input_tokens")
    {
        ::setenv("OPENAI_API_KEY", "sk-openai-exact-test", 1);
        ::setenv("NO_PROXY", "127.0.0.1", 1);
        test::FakeProvider server(test::rules());
        std::string instructions;
        for (int i = 0; i < 100; ++i) {
            instructions += "Rule " + std::to_string(i) + ": answer briefly. ";
        }
        const test::TempFile body(R"({"model":"gpt-5.6","instructions":")" + instructions +
                                      R"(","input":[{"role":"user","content":"Hello"}]})",
                                  "responses.json");
        const auto r = read_one(body.path());
        REQUIRE(r.format == model::ApiFormat::openai_responses);
        live::HttpClient client;
        live::ExactCounter counter(client, server.base_url(), std::nullopt,
                                   std::filesystem::path(body.dir()) / "counts");
        const std::string text = value_or_throw(read_file(body.path()), "");
        const auto whole = counter.count_prefix(text, r, r.segments.size() - 1);
        REQUIRE(whole);
        CHECK(*whole == r.prompt_tokens());
        const auto head = counter.count_prefix(text, r, 0);
        REQUIRE(head);
        CHECK(*head > 0);
        CHECK(*head < *whole);
        CHECK(server.calls("/v1/responses/input_tokens") == 3);
        CHECK(server.seen().front().headers.at("authorization") == "Bearer sk-openai-exact-test");
        ::unsetenv("OPENAI_API_KEY");
    }
}
