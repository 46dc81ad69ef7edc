#include "../support/fake_provider.hpp"
#include "account/auditor.hpp"
#include "helpers.hpp"
#include "ingest/loader.hpp"
#include "live/probe.hpp"
#include "report/probe_printer.hpp"
#include "util/error.hpp"
#include "util/file.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <sstream>

using namespace cachewise;
using namespace std::chrono_literals;

namespace {

const std::string k_template = std::string(CACHEWISE_SOURCE_DIR) + "/samples/request-template.json";
const std::string k_key = "sk-ant-test-0123456789-do-not-print";

// ANTHROPIC_API_KEY and OPENAI_API_KEY set for one test.
struct KeyEnv {
    KeyEnv()
    {
        // Loopback only, whatever proxy the environment names.
        ::setenv("NO_PROXY", "127.0.0.1", 1);
        ::setenv("no_proxy", "127.0.0.1", 1);
        ::setenv("ANTHROPIC_API_KEY", k_key.c_str(), 1);
        ::setenv("OPENAI_API_KEY", k_key.c_str(), 1);
    }
    ~KeyEnv()
    {
        ::unsetenv("ANTHROPIC_API_KEY");
        ::unsetenv("OPENAI_API_KEY");
    }
};

live::ProbeOptions
options_for(const test::FakeProvider& server, std::string file = k_template)
{
    live::ProbeOptions o;
    o.file = std::move(file);
    o.base_url = server.base_url();
    o.send = true;
    o.retry.base_delay = 10ms;
    o.timeouts.total = 5s;
    return o;
}

std::string
text_of(const live::ProbeResult& r)
{
    std::ostringstream out;
    report::print_probe(r, out);
    return out.str() + report::probe_to_json(r).dump();
}

ExitCode
code_of(const std::function<void()>& f, std::string& message)
{
    try {
        f();
    } catch (const Error& e) {
        message = e.what();
        return e.code();
    }
    return ExitCode::ok;
}

// A Chat Completions body of about 2,000 tokens with a stable system prompt.
std::string
chat_body()
{
    std::string system;
    for (int i = 0; i < 300; ++i) {
        system += "Rule " + std::to_string(i) + ": answer briefly and cite the manual. ";
    }
    return R"({"model":"gpt-4o","messages":[{"role":"system","content":")" + system +
           R"("},{"role":"user","content":"Hello"}]})";
}

} // namespace

TEST_SUITE("live::probe")
{
    TEST_CASE("a dry run says what it would send and sends nothing")
    {
        const KeyEnv keys;
        test::FakeProvider server(test::rules());
        auto o = options_for(server);
        o.send = false;
        live::HttpClient client;
        const auto r = live::probe(o, test::rules(), client);
        CHECK(server.seen().empty());
        CHECK_FALSE(r.sent);
        CHECK(r.url == server.base_url() + "/v1/messages");
        CHECK(r.model == "claude-opus-4-5");
        REQUIRE(r.breakpoints.size() == 1);
        CHECK(r.breakpoints[0].path == "system[1]");
        CHECK(r.breakpoints[0].tokens == 4956);
        REQUIRE(r.predicted.size() == 2);
        CHECK(r.predicted[0].write_5m == 4956);
        CHECK(r.predicted[1].read == 4956);
        CHECK(r.predicted[1].output == 1); // the output priced: max_tokens set to 1
        REQUIRE(r.estimated_cost_usd.has_value());
        CHECK(*r.estimated_cost_usd > 0);
        CHECK(r.unfilled.size() == 8);
        const auto text = text_of(r);
        CHECK(text.find("dry run: nothing was sent") != std::string::npos);
        CHECK(text.find("<ANTHROPIC_API_KEY, masked>") != std::string::npos);
        CHECK(text.find(k_key) == std::string::npos);
    }

    TEST_CASE("the first call writes, the second reads, as the simulator predicts")
    {
        const KeyEnv keys;
        test::FakeProvider server(test::rules());
        const test::TempFile record("", "record.jsonl");
        auto o = options_for(server);
        o.record = record.path();
        live::HttpClient client;
        const auto r = live::probe(o, test::rules(), client);
        REQUIRE(r.calls.size() == 2);
        REQUIRE(r.calls[0].usage);
        REQUIRE(r.calls[1].usage);
        CHECK(r.calls[0].usage->write_5m == 4956);
        CHECK(r.calls[0].usage->read == 0);
        CHECK(r.calls[0].usage->fresh == 11);
        CHECK(r.calls[1].usage->read == 4956);
        CHECK(r.calls[1].usage->write() == 0);
        REQUIRE(r.predicted.size() == 2);
        for (std::size_t i = 0; i < 2; ++i) {
            CHECK(r.predicted[i].read == r.calls[i].usage->read);
            CHECK(r.predicted[i].write_5m == r.calls[i].usage->write_5m);
            CHECK(r.predicted[i].fresh == r.calls[i].usage->fresh);
            REQUIRE(r.calls[i].cost_usd);
        }
        CHECK(*r.calls[1].cost_usd < *r.calls[0].cost_usd);
        // Streamed: the first token is timed inside the whole call.
        CHECK(r.calls[0].ttft_seconds > 0);
        CHECK(r.calls[0].ttft_seconds <= r.calls[0].total_seconds);
        CHECK(r.findings.empty());
        // One connection, kept alive; max_tokens cut to 1; the key sent, never shown.
        CHECK(r.connections == 1);
        CHECK(server.connections() == 1);
        const auto seen = server.seen();
        REQUIRE(seen.size() == 2);
        CHECK(seen[0].headers.at("x-api-key") == k_key);
        CHECK(seen[0].body.find(R"("max_tokens":1,)") != std::string::npos);
        CHECK(seen[0].body.find(R"("stream":true)") != std::string::npos);
        CHECK(text_of(r).find(k_key) == std::string::npos);
        const std::string recorded = value_or_throw(read_file(record.path()), "");
        CHECK(recorded.find(k_key) == std::string::npos);

        // The record audits to the same numbers.
        model::TextStore texts;
        ingest::LoadOptions lo;
        lo.text_store = &texts;
        ingest::Loader loader(test::rules(), lo);
        std::vector<model::Request> requests;
        loader.load({record.path()}, [&](model::Request&& q) { requests.push_back(std::move(q)); });
        REQUIRE(requests.size() == 2);
        const auto audit = account::audit(requests, texts, test::rules(), {});
        REQUIRE(audit.requests.size() == 2);
        for (std::size_t i = 0; i < 2; ++i) {
            REQUIRE(audit.requests[i].reported);
            CHECK(audit.requests[i].reported->read == r.calls[i].usage->read);
            CHECK(audit.requests[i].reported->write() == r.calls[i].usage->write());
            CHECK(audit.requests[i].expected.read == r.predicted[i].read);
            CHECK(audit.requests[i].actual.total() == doctest::Approx(*r.calls[i].cost_usd));
        }
    }

    TEST_CASE("a provider count outside the estimate's band is noted, one inside it is not")
    {
        const KeyEnv keys;
        test::FakeProvider server(test::rules());
        live::HttpClient client;
        const auto agreed = live::probe(options_for(server), test::rules(), client);
        CHECK(agreed.notes.empty());
        server.add_uncounted_tokens(5000); // the plan estimated 4,967
        const auto r = live::probe(options_for(server), test::rules(), client);
        REQUIRE(r.notes.size() == 1);
        CHECK(r.notes[0].find("the provider counted 9,967 prompt tokens where the plan estimated "
                              "about 4,967 (+101%, outside the estimate's ±20%)") == 0);
        CHECK(text_of(r).find("note: the provider counted 9,967") != std::string::npos);
        CHECK(report::probe_to_json(r)["notes"].size() == 1);
    }

    TEST_CASE("a changed prefix is a miss the prediction and the provider agree on")
    {
        const KeyEnv keys;
        test::FakeProvider server(test::rules());
        live::HttpClient client;
        auto o = options_for(server);
        o.times = 1;
        o.vars = {{"user_name", "Ann"}};
        live::probe(o, test::rules(), client);
        o.vars = {{"user_name", "Bob"}};
        o.diagnostics = true;
        o.times = 2;
        const auto r = live::probe(o, test::rules(), client);
        // Bob's system prompt differs from Ann's: written again, then read.
        CHECK(r.calls[0].usage->read == 0);
        CHECK(r.calls[0].usage->write_5m > 0);
        CHECK(r.calls[1].usage->read == r.calls[0].usage->write_5m);
        CHECK_FALSE(r.calls[0].diagnostics_requested);
        CHECK(r.calls[1].diagnostics_requested);
        REQUIRE(r.calls[1].cache_miss_reason);
        CHECK(r.calls[1].cache_miss_reason->empty());
        CHECK(server.seen().back().body.find(
                  R"("diagnostics":{"previous_message_id":"msg_fake_)") != std::string::npos);
    }

    TEST_CASE("429 with retry-after is waited out and retried")
    {
        const KeyEnv keys;
        test::FakeProvider server(test::rules());
        server.push_fault({test::Fault::Kind::status, 429, "1", 0});
        server.push_fault({test::Fault::Kind::status, 529, "", 0});
        live::HttpClient client;
        auto o = options_for(server);
        o.times = 1;
        const auto t0 = std::chrono::steady_clock::now();
        const auto r = live::probe(o, test::rules(), client);
        const double waited =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        REQUIRE(r.calls.size() == 1);
        CHECK(r.calls[0].attempts == 3);
        REQUIRE(r.calls[0].retried.size() == 2);
        CHECK(r.calls[0].retried[0] == "HTTP 429 with retry-after, waited 1.0 s");
        CHECK(r.calls[0].retried[1].rfind("HTTP 529, waited", 0) == 0);
        CHECK(waited >= 0.95);
        CHECK(server.calls("/v1/messages") == 3);
    }

    TEST_CASE("server errors past the retries fail with the status and the provider's message")
    {
        const KeyEnv keys;
        test::FakeProvider server(test::rules());
        for (int i = 0; i < 3; ++i) {
            server.push_fault({test::Fault::Kind::status, 500, "", 0});
        }
        live::HttpClient client;
        auto o = options_for(server);
        o.retry.max_retries = 2;
        std::string message;
        CHECK(code_of([&] { live::probe(o, test::rules(), client); }, message) ==
              ExitCode::network);
        CHECK(message == "call 1: HTTP 500 from " + server.base_url() +
                             " after 3 tries: api_error: Internal server error");
        CHECK(server.calls("/v1/messages") == 3);
    }

    TEST_CASE("a retry-after beyond the waiting budget is not waited for")
    {
        const KeyEnv keys;
        test::FakeProvider server(test::rules());
        server.push_fault({test::Fault::Kind::status, 429, "30", 0});
        live::HttpClient client;
        auto o = options_for(server);
        o.retry.max_total_wait = 2s;
        std::string message;
        CHECK(code_of([&] { live::probe(o, test::rules(), client); }, message) ==
              ExitCode::network);
        CHECK(message.find("a retry would wait 30.0 s, beyond the 2 s allowed") !=
              std::string::npos);
        CHECK(server.calls("/v1/messages") == 1);
    }

    TEST_CASE("a slow answer times out, a cut one is reported, neither is sent again")
    {
        const KeyEnv keys;
        test::FakeProvider server(test::rules());
        server.push_fault({test::Fault::Kind::slow, 200, "", 1500});
        live::HttpClient client({std::chrono::milliseconds(1000), std::chrono::milliseconds(300)});
        auto o = options_for(server);
        o.timeouts.total = 300ms;
        std::string message;
        CHECK(code_of([&] { live::probe(o, test::rules(), client); }, message) ==
              ExitCode::network);
        CHECK(message.find("did not answer in time") != std::string::npos);
        CHECK(server.calls("/v1/messages") == 1);

        server.push_fault({test::Fault::Kind::truncated, 200, "", 0});
        live::HttpClient fresh;
        CHECK(code_of([&] { live::probe(options_for(server), test::rules(), fresh); }, message) ==
              ExitCode::network);
        CHECK(message.rfind("call 1: " + server.base_url() +
                                " closed the connection before the whole response arrived",
                            0) == 0);
    }

    TEST_CASE("no server: the connection error in words")
    {
        const KeyEnv keys;
        std::string base;
        {
            test::FakeProvider gone(test::rules());
            base = gone.base_url();
        }
        live::ProbeOptions o;
        o.file = k_template;
        o.base_url = base;
        o.send = true;
        live::HttpClient client;
        std::string message;
        CHECK(code_of([&] { live::probe(o, test::rules(), client); }, message) ==
              ExitCode::network);
        CHECK(message.rfind("call 1: could not connect to " + base, 0) == 0);
    }

    TEST_CASE("OpenAI Chat Completions and Responses: a repeat reads the prompt's prefix")
    {
        const KeyEnv keys;
        test::FakeProvider server(test::rules());
        const test::TempFile chat(chat_body(), "chat.json");
        live::HttpClient client;
        const auto r = live::probe(options_for(server, chat.path()), test::rules(), client);
        CHECK(r.provider == "openai");
        CHECK(server.seen().front().headers.at("authorization") == "Bearer " + k_key);
        REQUIRE(r.calls.size() == 2);
        CHECK(r.calls[0].usage->read == 0);
        CHECK(r.calls[1].usage->read > 1024);
        CHECK(r.calls[1].usage->read % 128 == 0);
        CHECK(text_of(r).find(k_key) == std::string::npos);

        std::string responses = chat_body();
        responses.replace(responses.find("\"messages\""), 10, "\"input\"");
        const test::TempFile resp(responses, "responses.json");
        const auto rr = live::probe(options_for(server, resp.path()), test::rules(), client);
        CHECK(rr.url == server.base_url() + "/v1/responses");
        CHECK(server.seen().back().body.find(R"("max_output_tokens":16)") != std::string::npos);
        CHECK(rr.calls[1].usage->read > 1024);
    }

    TEST_CASE("without a key and without --base-url nothing is sent")
    {
        ::unsetenv("ANTHROPIC_API_KEY");
        live::ProbeOptions o;
        o.file = k_template;
        o.send = true;
        live::HttpClient client;
        std::string message;
        CHECK(code_of([&] { live::probe(o, test::rules(), client); }, message) == ExitCode::usage);
        CHECK(message == "no API key: set ANTHROPIC_API_KEY or pass --api-key-file");
    }
}

namespace {

// A conversation of `turns` user messages after a long first one; `marks`
// lists the messages that carry a cache_control breakpoint.
std::string
conversation(int turns, const std::vector<int>& marks)
{
    nlohmann::json body;
    body["model"] = "claude-sonnet-4-5";
    body["max_tokens"] = 5;
    std::string first;
    for (int i = 0; i < 200; ++i) {
        first += "Fact " + std::to_string(i) + ": the ledger balances at the end of each day. ";
    }
    body["messages"] = nlohmann::json::array();
    for (int i = 0; i < turns; ++i) {
        const std::string role = i % 2 == 0 ? "user" : "assistant";
        nlohmann::json block{{"type", "text"},
                             {"text", i == 0 ? first : "Turn " + std::to_string(i) + "."}};
        if (std::find(marks.begin(), marks.end(), i) != marks.end()) {
            block["cache_control"] = {{"type", "ephemeral"}};
        }
        body["messages"].push_back({{"role", role}, {"content", nlohmann::json::array({block})}});
    }
    return body.dump();
}

} // namespace

TEST_SUITE("live::probe")
{
    TEST_CASE("the fake provider's entries expire after their TTL; 1h entries are billed as 1h")
    {
        const KeyEnv keys;
        test::FakeProvider server(test::rules());
        live::HttpClient client;
        auto o = options_for(server);
        o.times = 1;
        CHECK(live::probe(o, test::rules(), client).calls[0].usage->write_5m == 4956);
        server.advance_clock(200);
        CHECK(live::probe(o, test::rules(), client).calls[0].usage->read == 4956);
        server.advance_clock(301); // five minutes after the last read
        const auto expired = live::probe(o, test::rules(), client);
        CHECK(expired.calls[0].usage->read == 0);
        CHECK(expired.calls[0].usage->write_5m == 4956);

        auto body = nlohmann::json::parse(value_or_throw(read_file(k_template), ""));
        body["system"][1]["cache_control"]["ttl"] = "1h";
        const test::TempFile hour(body.dump(), "hour.json");
        const auto r = live::probe(options_for(server, hour.path()), test::rules(), client);
        REQUIRE(r.calls.size() == 2);
        CHECK(r.calls[0].usage->write_1h == 4956);
        CHECK(r.calls[0].usage->write_5m == 0);
        CHECK(r.predicted[0].write_1h == 4956);
        CHECK(r.calls[1].usage->read == 4956);
        CHECK(r.findings.empty());
    }

    TEST_CASE("an entry more than 20 positions before every breakpoint is not read")
    {
        const KeyEnv keys;
        test::FakeProvider server(test::rules());
        live::HttpClient client;
        const test::TempFile head(conversation(3, {2}), "head.json");
        auto o = options_for(server, head.path());
        o.times = 1;
        const auto written = live::probe(o, test::rules(), client);
        const std::int64_t entry = written.calls[0].usage->write_5m;
        CHECK(entry > 1024);
        // 25 messages, marked only at the end: the entry at message 2 is out of reach.
        const test::TempFile far(conversation(25, {24}), "far.json");
        const auto missed = live::probe(options_for(server, far.path()), test::rules(), client);
        CHECK(missed.calls[0].usage->read == 0);
        CHECK(missed.predicted[0].read == 0);
        // A second breakpoint at message 2 reaches it.
        const test::TempFile near(conversation(25, {2, 24}), "near.json");
        auto n = options_for(server, near.path());
        n.times = 1;
        server.advance_clock(1000); // everything written so far has expired
        live::probe(o, test::rules(), client);
        const auto hit = live::probe(n, test::rules(), client);
        CHECK(hit.calls[0].usage->read == entry);
    }

    TEST_CASE("a provider message that quotes the key has it redacted")
    {
        const KeyEnv keys;
        test::FakeProvider server(test::rules());
        server.push_fault({test::Fault::Kind::status, 401, "", 0, true});
        live::HttpClient client;
        std::string message;
        CHECK(code_of([&] { live::probe(options_for(server), test::rules(), client); }, message) ==
              ExitCode::network);
        CHECK(message == "call 1: HTTP 401 from " + server.base_url() +
                             ": authentication_error: invalid x-api-key: [key redacted]");
        CHECK(server.seen().front().headers.at("x-api-key") == k_key);
    }
}
