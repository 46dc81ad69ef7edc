#include "account/auditor.hpp"
#include "analysis_helpers.hpp"

#include <doctest/doctest.h>

using namespace cachewise;
using namespace cachewise::account;

namespace {

AuditResult
audit_lines(const std::vector<std::string>& lines)
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
    std::vector<model::Request> requests;
    loader.load({file.path()}, [&](model::Request&& r) { requests.push_back(std::move(r)); });
    return audit(std::move(requests), texts, test::rules(), {});
}

std::string
exchange(const std::string& id, int second, const std::string& body, const std::string& usage,
         const std::string& model = "claude-sonnet-4-5")
{
    std::string b = body;
    const auto at = b.find("claude-sonnet-4-5");
    b.replace(at, 17, model);
    return fmt::format(
        R"({{"id":"{}","session":"s","started_at":"2026-11-20T10:{:02}:{:02}Z","first_token_at":"2026-11-20T10:{:02}:{:02}Z","request":{},"response":{{"type":"message","usage":{}}}}})",
        id, second / 60, second % 60, (second + 1) / 60, (second + 1) % 60, b, usage);
}

std::string
usage(std::int64_t read, std::int64_t w5, std::int64_t w1, std::int64_t fresh, std::int64_t output)
{
    return fmt::format(
        R"({{"input_tokens":{},"cache_read_input_tokens":{},"cache_creation_input_tokens":{},"cache_creation":{{"ephemeral_5m_input_tokens":{},"ephemeral_1h_input_tokens":{}}},"output_tokens":{}}})",
        fresh, read, w5 + w1, w5, w1, output);
}

const std::string k_system =
    R"("You are a meticulous assistant for the accounting team. Answer with exact figures.")";

} // namespace

TEST_SUITE("account::audit")
{
    TEST_CASE("the reported split never counts the write twice")
    {
        model::Usage u;
        u.input_tokens = 7;
        u.cache_read = 1000;
        u.cache_write = 300;
        u.cache_write_5m = 100;
        u.cache_write_1h = 200;
        u.output_tokens = 50;
        auto s = reported_split(u);
        REQUIRE(s);
        CHECK(s->split.write_5m == 100);
        CHECK(s->split.write_1h == 200);
        CHECK(s->split.input() == 1307);
        CHECK(!s->write_ttl_assumed);
        u.cache_write_5m.reset();
        u.cache_write_1h.reset();
        s = reported_split(u);
        CHECK(s->split.write_5m == 300);
        CHECK(s->write_ttl_assumed);
    }

    TEST_CASE("usage identities: CW030")
    {
        model::Request r;
        r.id = "x";
        model::Usage u;
        u.input_tokens = -1500;
        u.cache_write = 10000;
        u.cache_write_5m = 4000;
        u.cache_write_1h = 4000;
        r.usage = u;
        const auto f = check_usage(r);
        REQUIRE(f.size() == 2);
        CHECK(f[0].rule == "CW030");
        CHECK(f[0].kind == "negative");
        CHECK(f[0].message == "usage.input_tokens is negative (-1,500)");
        CHECK(f[1].kind == "write-split");
        CHECK(f[1].message ==
              "identity cache_creation = 5m + 1h failed: cache_creation_input_tokens "
              "10,000 is not the sum of its 5m and 1h parts (4,000 + 4,000 = 8,000)");
        r.usage = model::Usage{};
        CHECK(check_usage(r)[0].kind == "missing");
    }

    TEST_CASE("costs are exact to 1e-6 USD: 5m at 1.25x, 1h at 2x, per-model read prices")
    {
        const Split s{100000, 20000, 10000, 500, 2000};
        const auto sonnet = prices_for(test::rules().pricing, "claude-sonnet-4-5",
                                       *parse_rfc3339("2026-11-20T12:00:00Z"), s.input());
        REQUIRE(sonnet);
        const Money m = cost_of(s, *sonnet);
        // 100,000 x 0.30 + 20,000 x 3.75 + 10,000 x 6 + 500 x 3 + 2,000 x 15, per million
        CHECK(m.read == doctest::Approx(0.030).epsilon(1e-9));
        CHECK(m.write_5m == doctest::Approx(0.075).epsilon(1e-9));
        CHECK(m.write_1h == doctest::Approx(0.060).epsilon(1e-9));
        CHECK(m.fresh == doctest::Approx(0.0015).epsilon(1e-9));
        CHECK(m.output == doctest::Approx(0.030).epsilon(1e-9));
        CHECK(std::abs(m.total() - 0.1965) < 1e-6);
        // Fable 5.1 reads at 0.025x its $10 input: $0.25 per million.
        const auto fable =
            prices_for(test::rules().pricing, "claude-fable-5-1", std::nullopt, s.input());
        REQUIRE(fable);
        CHECK(std::abs(cost_of(s, *fable).total() -
                       (100000 * 0.25 + 20000 * 12.5 + 10000 * 20.0 + 500 * 10.0 + 2000 * 50.0) /
                           1e6) < 1e-9);
        // Haiku 5.5 switches to its long-prompt prices above 100,000 tokens.
        const auto small =
            prices_for(test::rules().pricing, "claude-haiku-5-5", std::nullopt, 90000);
        const auto large =
            prices_for(test::rules().pricing, "claude-haiku-5-5", std::nullopt, 150000);
        CHECK(small->input == doctest::Approx(0.1));
        CHECK(large->input == doctest::Approx(0.5));
        CHECK(!prices_for(test::rules().pricing, "mistral-large-2411", std::nullopt, 10));
        // DeepSeek bills twice as much in its peak hours (UTC).
        const auto peak = prices_for(test::rules().pricing, "deepseek-v4-flash",
                                     *parse_rfc3339("2026-11-29T02:30:00Z"), 10);
        const auto calm = prices_for(test::rules().pricing, "deepseek-v4-flash",
                                     *parse_rfc3339("2026-11-29T12:00:00Z"), 10);
        REQUIRE(peak);
        REQUIRE(calm);
        CHECK(peak->read == doctest::Approx(0.006));
        CHECK(calm->read == doctest::Approx(0.003));
        // From 2025-02-26 to 2025-09-05 deepseek-chat cost half at night, UTC
        // 16:30-00:30: a window on half hours.
        const auto at = [](const char* stamp) {
            return prices_for(test::rules().pricing, "deepseek-chat", *parse_rfc3339(stamp), 10)
                ->input;
        };
        CHECK(at("2025-09-04T19:44:00Z") == doctest::Approx(0.135));
        CHECK(at("2025-09-04T00:29:59Z") == doctest::Approx(0.135));
        CHECK(at("2025-09-04T00:30:00Z") == doctest::Approx(0.27));
        CHECK(at("2025-09-04T16:29:00Z") == doctest::Approx(0.27));
        CHECK(at("2025-09-04T16:30:00Z") == doctest::Approx(0.135));
        CHECK(at("2025-02-20T19:44:00Z") == doctest::Approx(0.27)); // before the discount
    }

    TEST_CASE(
        "an audited log: actual cost from reported usage, exact; expected from the simulation")
    {
        const std::string m1 =
            R"([{"role":"user","content":[{"type":"text","text":"Total for March?","cache_control":{"type":"ephemeral"}}]}])";
        const auto body1 = test::body(k_system, m1);
        const auto result = audit_lines({exchange("a", 0, body1, usage(0, 1500, 0, 3, 40)),
                                         exchange("b", 20, body1, usage(1500, 0, 0, 3, 40))});
        REQUIRE(result.requests.size() == 2);
        const auto& a = result.requests[0];
        const auto& b = result.requests[1];
        CHECK(a.expected.write_5m + a.expected.fresh == 1503);
        CHECK(b.expected.read >= 1500 - 32);
        CHECK(!a.mismatch);
        CHECK(!b.mismatch);
        // (1500 x 3.75 + 3 x 3 + 40 x 15) / 1e6 and (1500 x 0.3 + 3 x 3 + 40 x 15) / 1e6
        CHECK(std::abs(a.actual.total() - 0.006234) < 1e-6);
        CHECK(std::abs(b.actual.total() - 0.001059) < 1e-6);
        CHECK(std::abs(result.totals.actual.total() - 0.007293) < 1e-6);
        CHECK(result.totals.hit_rate() == doctest::Approx(1500.0 / 3006.0));
        CHECK(result.totals.with_read == 1);
        CHECK(std::abs(result.totals.write_premium - 1500 * 0.75 / 1e6) < 1e-9);
        CHECK(std::abs(result.totals.read_savings - 1500 * 2.7 / 1e6) < 1e-9);
    }

    TEST_CASE("a miss the documented cache cannot explain: CW031 with CW022")
    {
        const std::string m1 =
            R"([{"role":"user","content":[{"type":"text","text":"Total for March?","cache_control":{"type":"ephemeral"}}]}])";
        const auto body1 = test::body(k_system, m1);
        const auto result = audit_lines({exchange("a", 0, body1, usage(0, 1500, 0, 3, 40)),
                                         exchange("b", 20, body1, usage(0, 1500, 0, 3, 40))});
        const auto& b = result.requests[1];
        CHECK(b.mismatch);
        REQUIRE(!b.findings.empty());
        const auto& f = result.findings[b.findings.back()];
        CHECK(f.rule == "CW031");
        CHECK(f.kind == "CW022");
        CHECK(f.partner == "a");
    }

    TEST_CASE("without logged times the same short read is not judged: the entry may have expired")
    {
        const std::string m1 =
            R"([{"role":"user","content":[{"type":"text","text":"Total for March?","cache_control":{"type":"ephemeral"}}]}])";
        const auto body1 = test::body(k_system, m1);
        const auto untimed = [](std::string line) {
            // The same record, its start and first-token times removed.
            for (const std::string key : {R"("started_at")", R"("first_token_at")"}) {
                const auto at = line.find(key);
                line.erase(at, line.find(',', at) - at + 1);
            }
            return line;
        };
        const auto result =
            audit_lines({untimed(exchange("a", 0, body1, usage(0, 1500, 0, 3, 40))),
                         untimed(exchange("b", 20, body1, usage(0, 1500, 0, 3, 40)))});
        const auto& b = result.requests[1];
        CHECK_FALSE(b.mismatch);
        CHECK(b.not_judged);
        CHECK(std::none_of(result.findings.begin(), result.findings.end(),
                           [](const auto& f) { return f.kind == "CW022"; }));
        CHECK(std::any_of(result.notes.begin(), result.notes.end(), [](const auto& n) {
            return n.find("without logged times the entry may have expired") != std::string::npos;
        }));
    }

    TEST_CASE("a finding repeated in a stream is folded into its first; another stream's is not")
    {
        // A breakpoint below the minimum, in the same place of every request:
        // one CW012 per stream and place, each request's row listing its
        // stream's.
        const std::string m1 =
            R"([{"role":"user","content":[{"type":"text","text":"Total?","cache_control":{"type":"ephemeral"}}]}])";
        const auto body1 = test::body(k_system, m1);
        auto in_stream = [&](const std::string& id, int second, const std::string& stream) {
            auto line = exchange(id, second, body1, usage(0, 30, 0, 3, 40));
            line.replace(line.find(R"("session":"s")"), 13, R"("session":")" + stream + "\"");
            return line;
        };
        const auto result = audit_lines({in_stream("a", 0, "one"), in_stream("b", 10, "two"),
                                         in_stream("c", 20, "one"), in_stream("d", 30, "one")});
        std::vector<std::size_t> below;
        for (std::size_t k = 0; k < result.findings.size(); ++k) {
            if (result.findings[k].rule == "CW012" &&
                result.findings[k].location.path == "messages[0].content[0]") {
                below.push_back(k);
            }
        }
        REQUIRE(below.size() == 2);
        CHECK(result.findings[below[0]].stream == "one");
        CHECK(result.findings[below[0]].occurrences == 3);
        CHECK(result.findings[below[1]].stream == "two");
        CHECK(result.findings[below[1]].occurrences == 1);
        const auto lists = [&](std::size_t row, std::size_t k) {
            const auto& f = result.requests[row].findings;
            return std::find(f.begin(), f.end(), k) != f.end();
        };
        CHECK(lists(0, below[0]));
        CHECK(lists(1, below[1]));
        CHECK(lists(2, below[0]));
        CHECK(lists(3, below[0]));
    }

    TEST_CASE("a read short of an estimated breakpoint, within the estimate's band, is no miss")
    {
        // b branches from a after the system prompt: the simulation hits a's
        // entry at the end of the system prompt, whose position is estimated.
        const std::string m1 =
            R"([{"role":"user","content":[{"type":"text","text":"Total for March?","cache_control":{"type":"ephemeral"}}]}])";
        const std::string m2 =
            R"([{"role":"user","content":[{"type":"text","text":"And for April, by team?","cache_control":{"type":"ephemeral"}}]}])";
        const auto with_read = [&](std::int64_t read) {
            return audit_lines(
                {exchange("a", 0, test::body(k_system, m1), usage(0, 4000, 0, 3, 40)),
                 exchange("b", 20, test::body(k_system, m2), usage(read, 4010 - read, 0, 3, 40))});
        };
        const std::int64_t position = with_read(0).requests[1].expected.read;
        REQUIRE(position > 1024);
        REQUIRE(position < 4000);

        // 90% of the estimated position: the breakpoint may sit there.
        const auto near = with_read(position * 9 / 10);
        CHECK(!near.requests[1].mismatch);
        REQUIRE(!near.notes.empty());
        CHECK(near.notes.back().find("not judged a miss") != std::string::npos);

        // Half of it: beyond the band, a miss the documented cache cannot explain.
        const auto far = with_read(position / 2);
        const auto& b = far.requests[1];
        CHECK(b.mismatch);
        REQUIRE(!b.findings.empty());
        CHECK(far.findings[b.findings.back()].kind == "CW022");
    }

    TEST_CASE("Gemini: only what the log's reads show cached can be judged missed")
    {
        // b extends a and reads a's first two 2,048-token steps; c extends b,
        // whose whole prompt (9,000 tokens) the simulation takes as cached;
        // d extends c. Gemini reports no writes: a read no shorter than what
        // the entry's writers read shows only that b's prompt was not stored.
        const auto gemini = [](const std::string& id, int second, const std::string& contents,
                               int prompt, int read) {
            return fmt::format(
                R"({{"id":"{}","session":"s","started_at":"2026-11-20T10:00:{:02}Z","request":{{"model":"models/gemini-2.5-flash","systemInstruction":{{"parts":[{{"text":"Answer from the manual only."}}]}},"contents":[{}]}},"response":{{"usageMetadata":{{"promptTokenCount":{},"cachedContentTokenCount":{},"candidatesTokenCount":20}}}}}})",
                id, second, contents, prompt, read);
        };
        const std::string q1 =
            R"({"role":"user","parts":[{"text":"Manual: returns within thirty days. How long?"}]})";
        const std::string a1 = R"({"role":"model","parts":[{"text":"Thirty days."}]})";
        const std::string q2 =
            R"({"role":"user","parts":[{"text":"And refunds, to which card?"}]})";
        const std::string a2 = R"({"role":"model","parts":[{"text":"The original card."}]})";
        const std::string q3 = R"({"role":"user","parts":[{"text":"Store credit, when?"}]})";
        const std::string a3 = R"({"role":"model","parts":[{"text":"Within two days."}]})";
        const std::string q4 = R"({"role":"user","parts":[{"text":"By email?"}]})";
        const std::string c_contents = q1 + "," + a1 + "," + q2 + "," + a2 + "," + q3;
        const auto with_reads = [&](int c_read, int d_read) {
            return audit_lines({gemini("a", 0, q1, 4500, 0),
                                gemini("b", 10, q1 + "," + a1 + "," + q2, 9000, 4096),
                                gemini("c", 20, c_contents, 9500, c_read),
                                gemini("d", 30, c_contents + "," + a3 + "," + q4, 12500, d_read)});
        };
        const auto shown = [](const AuditResult& r, std::size_t i) {
            return r.requests[i].not_judged && !r.requests[i].mismatch &&
                   r.requests[i].notes.back().find("as cached") != std::string::npos;
        };

        // c reads what b read: not judged, and the note says why.
        const auto same = with_reads(4090, 8100);
        REQUIRE(same.requests[2].expected.read == 8192);
        CHECK(shown(same, 2));
        // Both figures, so that "not judged" beside the expected read does
        // not read as a contradiction.
        CHECK(same.requests[2].notes.back() ==
              "read 4,090, and the log shows 4,096 tokens of the entry the simulation hit as "
              "cached (b read them): the expected 8,192 assume that b's prompt was stored, which "
              "the provider does not report: not judged a miss");
        CHECK(std::any_of(same.notes.begin(), same.notes.end(), [](const std::string& n) {
            return n.find("writer_read_slack_tokens") != std::string::npos;
        }));

        // c reads less than b read: a miss of what b showed cached, counted
        // as the 4,096 the log shows, not the 8,192 the simulation expected.
        const auto less = with_reads(0, 0);
        const auto& lc = less.requests[2];
        CHECK(lc.mismatch);
        REQUIRE(!lc.findings.empty());
        const auto& miss = less.findings[lc.findings.back()];
        CHECK(miss.kind == "CW022");
        CHECK(miss.tokens_lost == 4096);
        CHECK(miss.message.find("the log shows 4,096 of them cached (b read them)") !=
              std::string::npos);

        // d's writer c read nothing: what c's own writer b read counts, within
        // the TTL. d reading it again is not judged; d reading nothing is.
        CHECK(shown(with_reads(0, 4080), 3));
        CHECK(less.requests[3].mismatch);
    }

    TEST_CASE("a read only a partner on another upstream could supply says the two share")
    {
        // OpenRouter: a on Google, b on Google AI Studio extends a, c on
        // Google extends b. Google's own entries hold a's 3,000 tokens; c
        // reading 4,400 of b's 5,000 is more than they hold, past the band.
        const auto routed = [](const std::string& id, int second, int turns, int prompt, int read,
                               const std::string& provider) {
            // Each request resends the one before and adds a turn.
            std::string messages = R"({"role":"system","content":"Answer from the notes."})";
            for (int t = 0; t <= turns; ++t) {
                messages += fmt::format(
                    R"(,{{"role":"user","content":"Question {} about the build notes?"}})", t);
                if (t < turns) {
                    messages += fmt::format(R"(,{{"role":"assistant","content":"Answer {}."}})", t);
                }
            }
            return fmt::format(
                R"({{"id":"{}","session":"s","started_at":"2026-11-20T10:00:{:02}Z","request":{{"model":"google/gemini-2.5-pro","messages":[{}]}},"response":{{"provider":"{}","usage":{{"prompt_tokens":{},"completion_tokens":10,"prompt_tokens_details":{{"cached_tokens":{}}}}}}}}})",
                id, second, messages, provider, prompt, read);
        };
        const auto with_read = [&](int read) {
            return audit_lines({routed("a", 0, 0, 3000, 0, "Google"),
                                routed("b", 10, 1, 5000, 0, "Google AI Studio"),
                                routed("c", 20, 2, 5200, read, "Google")});
        };
        const auto shared = with_read(4400);
        const auto& c = shared.requests[2];
        REQUIRE(c.expected.read == 2048);
        CHECK(c.mismatch);
        REQUIRE(!c.findings.empty());
        const auto& f = shared.findings[c.findings.back()];
        CHECK(f.kind == "reads");
        CHECK(f.message.find("the two seem to share one") != std::string::npos);
        CHECK(f.partner == "b");

        // What Google's own entry holds: no finding.
        CHECK(!with_read(2048).requests[2].mismatch);
    }

    TEST_CASE("a priced request's own logged cost is checked against the prices used")
    {
        const std::string m1 =
            R"([{"role":"user","content":[{"type":"text","text":"Total for March?","cache_control":{"type":"ephemeral"}}]}])";
        const auto with_cost = [&](const std::string& cost) {
            std::string u = usage(0, 1500, 0, 3, 40);
            if (!cost.empty()) {
                u.insert(u.size() - 1, R"(,"cost":)" + cost);
            }
            return audit_lines({exchange("a", 0, test::body(k_system, m1), u)});
        };
        const auto note = [](const AuditResult& r) {
            const auto it = std::find_if(r.notes.begin(), r.notes.end(), [](const auto& n) {
                return n.find("own cost") != std::string::npos;
            });
            return it == r.notes.end() ? std::string() : *it;
        };
        const auto plain = with_cost("");
        REQUIRE(plain.requests[0].priced);
        CHECK(note(plain).empty());
        const double computed = plain.requests[0].actual.total();
        REQUIRE(computed > 0);
        CHECK(note(with_cost(fmt::format("{:.9f}", computed))).find("agree") != std::string::npos);
        CHECK(note(with_cost(fmt::format("{:.9f}", computed * 2))).find("50.0% apart") !=
              std::string::npos);
    }

    TEST_CASE("a read nothing in the log could have written: CW025 warmed-elsewhere")
    {
        const std::string m1 =
            R"([{"role":"user","content":[{"type":"text","text":"Total for March?","cache_control":{"type":"ephemeral"}}]}])";
        const auto result =
            audit_lines({exchange("a", 0, test::body(k_system, m1), usage(1400, 100, 0, 3, 40))});
        const auto& f = result.findings.at(result.requests[0].findings.back());
        CHECK(f.rule == "CW031");
        CHECK(f.kind == "CW025");
    }

    TEST_CASE("a read into an earlier response's server-tool blocks is not CW025")
    {
        // Turn 2 resends turn 1's code-execution blocks, whose ids only that
        // call produced: what it read past the shared prefix was cached by
        // the provider during turn 1's own tool iterations, not elsewhere.
        const std::string q1 =
            R"({"role":"user","content":[{"type":"text","text":"Run the totals for March.","cache_control":{"type":"ephemeral"}}]})";
        const std::string answer =
            R"({"role":"assistant","content":[{"type":"server_tool_use","id":"srvtoolu_01AbC","name":"code_execution","input":{"code":"total = 4999950000"}},{"type":"code_execution_tool_result","tool_use_id":"srvtoolu_01AbC","content":{"type":"code_execution_result","stdout":"4999950000","stderr":"","return_code":0}},{"type":"text","text":"The total is 4999950000."}]})";
        const std::string q2 =
            R"({"role":"user","content":[{"type":"text","text":"And April?","cache_control":{"type":"ephemeral"}}]})";
        const auto first = test::body(k_system, "[" + q1 + "]");
        const auto second = test::body(k_system, "[" + q1 + "," + answer + "," + q2 + "]");
        // Turn 1's whole prompt (1,503 tokens) is shared; turn 2 reads 1,900
        // of its 2,000, beyond that prefix and its estimate's band.
        const auto result = audit_lines({exchange("a", 0, first, usage(0, 1500, 0, 3, 40)),
                                         exchange("b", 20, second, usage(1900, 97, 0, 3, 40))});
        REQUIRE(result.requests[1].shared_tokens == 1503);
        const auto& b = result.requests[1];
        REQUIRE(b.mismatch);
        const auto& f = result.findings.at(b.findings.back());
        CHECK(f.rule == "CW031");
        CHECK(f.kind == "reads");
        CHECK(f.message.find("server_tool_use") != std::string::npos);
        CHECK(f.message.find("CW025") == std::string::npos);
    }

    TEST_CASE("the ideal is never above the actual cost: a provider warmed elsewhere read more")
    {
        // Nothing in the log shares this prompt, but the provider read 1,400
        // tokens of it: an ideal of "no read" would be above what was paid.
        const std::string m1 =
            R"([{"role":"user","content":[{"type":"text","text":"Total for March?","cache_control":{"type":"ephemeral"}}]}])";
        const auto result =
            audit_lines({exchange("a", 0, test::body(k_system, m1), usage(1400, 100, 0, 3, 40))});
        const auto& a = result.requests.at(0);
        REQUIRE(a.priced);
        CHECK(a.shared_tokens == 0);
        CHECK(a.ideal.total() <= a.actual.total());
        CHECK(a.ideal.read == doctest::Approx(a.actual.read));
        CHECK(result.totals.ideal.total() <= result.totals.actual.total());
    }

    TEST_CASE("a read longer than any entry the log wrote on its prefix is CW025, not 'reads'")
    {
        // The first request writes only its system prompt (its message has no
        // marker); the second extends it and reads the first's whole prompt:
        // an entry no request of this log wrote.
        std::string long_system = "\"";
        for (int i = 0; i < 120; ++i) {
            long_system += "Answer with exact figures from the ledger and cite each entry. ";
        }
        long_system += "\"";
        const std::string question =
            R"({"role":"user","content":[{"type":"text","text":"List every payment above 500 EUR made in March to suppliers outside the eurozone, with dates, amounts and the invoice numbers they settle, sorted by amount. Include the supplier's country, the currency paid in, the exchange rate applied on the day and the bank fee charged, and flag every payment that was split across several transfers or reversed later in the month."}]})";
        const std::string m1 = "[" + question + "]";
        const std::string m2 =
            "[" + question +
            R"(,{"role":"assistant","content":[{"type":"text","text":"Three payments."}]},{"role":"user","content":[{"type":"text","text":"And April?","cache_control":{"type":"ephemeral"}}]}])";
        const auto result = audit_lines(
            {exchange("a", 0, test::body(long_system, m1), usage(0, 1800, 0, 200, 10)),
             exchange("b", 30, test::body(long_system, m2), usage(2000, 40, 0, 3, 10))});
        REQUIRE(result.requests.size() == 2);
        CHECK(result.requests[1].expected.read < 1950); // the system entry only
        const auto& f = result.findings.at(result.requests[1].findings.back());
        CHECK(f.rule == "CW031");
        CHECK(f.kind == "CW025");
        CHECK(f.message.find("no request in the log cached a prefix of 2,000 tokens") !=
              std::string::npos);
    }

    TEST_CASE("an unknown model is unpriced, never guessed")
    {
        const std::string m1 = R"([{"role":"user","content":"hi"}])";
        const auto result = audit_lines({exchange("a", 0, test::body(k_system, m1),
                                                  usage(0, 0, 0, 900, 10), "claude-future-9")});
        CHECK(!result.requests[0].priced);
        CHECK(result.unpriced_models == std::vector<std::string>{"claude-future-9"});
        CHECK(result.totals.priced == 0);
    }

    TEST_CASE("Claude Code totals equal ccusage's for input, cache writes and reads")
    {
        // ccusage 17 on samples/claude-code reports input 35, cache creation
        // 39,460, cache read 178,656 (the same requestId dedup). Its output,
        // 1,758, takes the first line of each response; the final count, on
        // the last line, is 4,652.
        model::TextStore texts;
        ingest::LoadOptions options;
        options.text_store = &texts;
        ingest::Loader loader(test::rules(), options);
        std::vector<model::Request> requests;
        loader.load({std::string(CACHEWISE_SOURCE_DIR) + "/samples/claude-code"},
                    [&](model::Request&& r) { requests.push_back(std::move(r)); });
        const auto result = audit(std::move(requests), texts, test::rules(), {});
        CHECK(result.totals.reported.fresh == 35);
        CHECK(result.totals.reported.write() == 39460);
        CHECK(result.totals.reported.read == 178656);
        CHECK(result.totals.reported.output == 4652);
        CHECK(result.assumed_breakpoints == 12);
    }
}
