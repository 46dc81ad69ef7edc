#include "live/probe.hpp"

#include "account/auditor.hpp"
#include "analysis/rule_catalogue.hpp"
#include "ingest/file_kind.hpp"
#include "ingest/loader.hpp"
#include "ingest/response_parser.hpp"
#include "live/api_key.hpp"
#include "live/endpoint.hpp"
#include "live/probe_body.hpp"
#include "live/retrying_post.hpp"
#include "model/breakpoints.hpp"
#include "model/tokens.hpp"
#include "util/error.hpp"
#include "util/file.hpp"
#include "util/format.hpp"
#include "util/time.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <simdjson.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace cachewise::live {

namespace {

// The most output a body allows (max_tokens, max_completion_tokens,
// max_output_tokens), when it says.
std::optional<std::int64_t>
max_output(const std::string& body)
{
    const auto json = nlohmann::json::parse(body, nullptr, false);
    if (!json.is_object()) {
        return std::nullopt;
    }
    for (const char* name : {"max_tokens", "max_completion_tokens", "max_output_tokens"}) {
        if (const auto it = json.find(name);
            it != json.end() && it->is_number_integer() && it->get<std::int64_t>() > 0) {
            return it->get<std::int64_t>();
        }
    }
    return std::nullopt;
}

using Json = nlohmann::ordered_json;

// Records go through the same loader as a user's log, so that a probe, its
// prediction and `audit` of its --record file read the same bytes the same way.
std::vector<model::Request>
load_records(const std::string& jsonl, ingest::InputFormat format, const ruleset::Rules& rules,
             model::TextStore& texts, const std::string& source, const ProbeOptions& probe)
{
    static std::atomic<int> counter{0};
    const auto path = std::filesystem::temp_directory_path() /
                      fmt::format("cachewise-probe-{}-{}.jsonl", ::getpid(), counter++);
    {
        std::ofstream out(path, std::ios::binary);
        out << jsonl;
        if (!out) {
            throw Error(fmt::format("cannot write a temporary file {}", path.string()));
        }
    }
    ingest::LoadOptions options;
    options.format = format;
    options.text_store = &texts;
    ingest::Loader loader(rules, options);
    std::vector<model::Request> requests;
    const auto summary =
        loader.load({path.string()}, [&](model::Request&& r) { requests.push_back(std::move(r)); });
    std::filesystem::remove(path);
    if (summary.error_count > 0) {
        auto e = summary.errors.front();
        e.file = source;
        throw Error(e.str());
    }
    if (probe.count_exact) {
        for (auto& r : requests) {
            probe.count_exact(r, texts);
        }
    }
    return requests;
}

std::string
iso(std::chrono::system_clock::time_point t)
{
    const auto micros =
        std::chrono::duration_cast<std::chrono::microseconds>(t.time_since_epoch()).count();
    return format_rfc3339(Timestamp{micros});
}

// The simulator's view of the calls: each record's request, response and times.
account::AuditResult
audit_records(const std::string& jsonl, const ruleset::Rules& rules, const std::string& source,
              const ProbeOptions& probe)
{
    model::TextStore texts;
    auto requests = load_records(jsonl, ingest::InputFormat::exchange, rules, texts, source, probe);
    return account::audit(std::move(requests), texts, rules, account::AuditOptions{});
}

struct Prepared {
    std::string body; // rendered, max_tokens set, not streamed
    model::Request request;
    Endpoint endpoint;
    std::optional<ApiKey> key;
    std::vector<std::string> unfilled;
};

Prepared
prepare(const ProbeOptions& options, const ruleset::Rules& rules)
{
    if (options.times < 1 || options.times > 20) {
        throw Error(fmt::format("--times {}: expected 1 to 20 calls", options.times));
    }
    const std::string text = value_or_throw(read_file(options.file), "");
    // A log is not a body to send: say what it is, as lint does.
    if (const auto kind = ingest::describe_non_template(text, options.file); !kind.empty()) {
        throw Error(ingest::not_a_template(options.file, kind));
    }
    const auto rendered = value_or_throw(render_template(text, options.vars), "");
    Prepared p;
    p.unfilled = rendered.unfilled;
    model::TextStore texts;
    // Read once as the user wrote it, for the API format; then as it is sent.
    auto first = load_records(rendered.text + "\n", ingest::InputFormat::request, rules, texts,
                              options.file, options);
    if (first.size() != 1) {
        throw Error(fmt::format("{}: expected one request body", options.file));
    }
    const model::ApiFormat api = first.front().format;
    p.endpoint = endpoint_for(api, first.front().provider, options.base_url);
    BodyEdits edits;
    edits.keep_max_tokens = options.keep_max_tokens;
    p.body = value_or_throw(prepare_body(rendered.text, api, edits, options.file), "");
    p.request = std::move(load_records(p.body + "\n", ingest::InputFormat::request, rules, texts,
                                       options.file, options)
                              .front());
    p.key = value_or_throw(read_api_key(p.endpoint.key_variable, options.api_key_file), "");
    return p;
}

// The exchange record of one call (the key is in no header kept here).
std::string
record_line(int n, const std::string& session, const std::string& provider, const std::string& body,
            const std::string& response_body, std::chrono::system_clock::time_point started,
            double ttfb, double total)
{
    Json rec;
    rec["id"] = fmt::format("{}-{}", session, n);
    rec["session"] = session;
    rec["provider"] = provider;
    const auto at = [&](double seconds) {
        return iso(started + std::chrono::microseconds(std::llround(seconds * 1e6)));
    };
    rec["started_at"] = at(0);
    rec["first_token_at"] = at(ttfb);
    rec["ended_at"] = at(total);
    rec["request"] = Json::parse(body);
    auto response = Json::parse(response_body, nullptr, false);
    rec["response"] = response.is_discarded() ? Json(response_body) : response;
    return rec.dump(-1, ' ', false, Json::error_handler_t::replace) + "\n";
}

std::string
hypothetical_records(const Prepared& p, int times)
{
    // Calls a second apart, each answered within half a second.
    const auto t0 = std::chrono::system_clock::now();
    std::string out;
    for (int i = 0; i < times; ++i) {
        const auto started = t0 + std::chrono::seconds(i);
        Json rec;
        rec["id"] = fmt::format("probe-{}", i + 1);
        rec["session"] = "probe";
        rec["provider"] = p.endpoint.provider;
        rec["started_at"] = iso(started);
        rec["first_token_at"] = iso(started + std::chrono::milliseconds(500));
        rec["request"] = Json::parse(p.body);
        out += rec.dump() + "\n";
    }
    return out;
}

void
fill_plan(const Prepared& p, const ProbeOptions& options, const ruleset::Rules& rules,
          ProbeResult& r)
{
    r.file = options.file;
    r.provider = p.endpoint.provider;
    r.model = p.request.model;
    r.api = std::string(model::to_string(p.endpoint.api));
    r.times = options.times;
    r.url = p.endpoint.create_url();
    r.headers = p.endpoint.headers(p.key, true);
    r.body_bytes = p.body.size();
    r.key_origin = p.key ? p.key->origin : std::string();
    r.unfilled = p.unfilled;
    r.prompt_tokens = p.request.prompt_tokens();
    r.tokens_exact = model::counted_exactly(p.request);
    for (const auto& bp : model::breakpoints(p.request)) {
        const auto& s = p.request.segments[bp.segment];
        r.breakpoints.push_back({s.path.str(), s.cumulative_tokens,
                                 std::string(model::to_string(bp.cache_control.ttl)),
                                 bp.automatic});
    }
    const auto estimate =
        audit_records(hypothetical_records(p, options.times), rules, r.file, options);
    // A body the API answers with 400 (CW013, CW014) would cost calls for
    // nothing: said before anything is sent, dry run or not.
    for (const auto& f : estimate.findings) {
        if (f.rule == analysis::rule::k_too_many_breakpoints ||
            f.rule == analysis::rule::k_ttl_order) {
            throw Error(fmt::format("{}: the API rejects this request ({} {}: {}); nothing was "
                                    "sent (lint {} shows where)",
                                    r.file, f.rule, f.name, f.message, r.file));
        }
    }
    // Priced here, as audit prices only reported usage: the predicted input
    // plus the output the body allows (1 token unless kept).
    const auto prices = account::prices_for(rules.pricing, p.request.billed_model(), std::nullopt,
                                            p.request.prompt_tokens());
    r.output_priced = options.keep_max_tokens ? max_output(p.body) : 1;
    double cost = 0;
    for (const auto& a : estimate.requests) {
        account::Split split = a.expected;
        split.output = r.output_priced.value_or(0); // as priced, so the two agree
        cost += prices ? account::cost_of(split, *prices).total() : 0;
        r.predicted.push_back(split);
    }
    if (prices) {
        r.estimated_cost_usd = cost;
    }
}

void
read_response(const std::string& body, ProbeCall& call)
{
    ingest::ResponseInfo info;
    ingest::ResponseParser reader;
    try {
        simdjson::ondemand::parser parser;
        const simdjson::padded_string padded(body);
        simdjson::ondemand::document doc;
        simdjson::ondemand::value value;
        const bool object = body.find_first_not_of(" \r\n\t") != std::string::npos &&
                            body[body.find_first_not_of(" \r\n\t")] == '{';
        if (object) {
            // A server that answered without streaming.
            if (parser.iterate(padded).get(doc) != simdjson::SUCCESS ||
                doc.get_value().get(value) != simdjson::SUCCESS) {
                throw Error("not JSON");
            }
            info = reader.parse_value(value);
        } else {
            std::size_t at = 0;
            while (at <= body.size()) {
                const auto end = body.find('\n', at);
                std::string_view line(body.data() + at,
                                      (end == std::string::npos ? body.size() : end) - at);
                if (!line.empty() && line.back() == '\r') {
                    line.remove_suffix(1);
                }
                reader.sse_line(line, info);
                if (end == std::string::npos) {
                    break;
                }
                at = end + 1;
            }
            reader.sse_line("", info); // the last event, when the stream lacks its blank line
        }
    } catch (const std::exception& e) {
        throw Error(fmt::format("call {}: the response is not a message the API documents: {}",
                                call.n, e.what()),
                    ExitCode::network);
    }
    if (!info.error.empty()) {
        throw Error(fmt::format("call {}: the stream ended with an error: {}", call.n, info.error),
                    ExitCode::network);
    }
    call.message_id = info.message_id;
    call.cache_miss_reason = info.cache_miss_reason;
    if (info.usage) {
        if (const auto split = account::reported_split(*info.usage)) {
            call.usage = split->split;
        }
    }
}

// What in a stream means that a token arrived.
std::string
first_token_marker(model::ApiFormat api)
{
    switch (api) {
    case model::ApiFormat::anthropic:
        return "content_block_delta";
    case model::ApiFormat::openai_responses:
        return "response.output_text.delta";
    default:
        return "\"delta\"";
    }
}

// One call: the body (with diagnostics naming the previous message), the
// retries, the usage; its exchange record is returned.
std::string
send_call(const Prepared& p, const ProbeOptions& options, HttpClient& client,
          const std::string& url, const std::string& session, const std::string& previous_id,
          ProbeCall& call)
{
    BodyEdits edits;
    edits.keep_max_tokens = options.keep_max_tokens;
    if (options.diagnostics && p.endpoint.api == model::ApiFormat::anthropic) {
        edits.previous_message_id = previous_id;
        call.diagnostics_requested = !previous_id.empty();
    }
    const std::string body =
        value_or_throw(prepare_body(p.body, p.endpoint.api, edits, options.file), "");
    Attempts attempts;
    const auto started = std::chrono::system_clock::now();
    const HttpResponse response = post_with_retries(
        client, {url, p.endpoint.headers(p.key, false), body, first_token_marker(p.endpoint.api)},
        options.retry, p.key, fmt::format("call {}", call.n), attempts);
    call.attempts = attempts.count;
    call.retried = attempts.retried;
    call.status = response.status;
    call.ttft_seconds = response.first_token_seconds.value_or(response.ttfb_seconds);
    call.total_seconds = response.total_seconds;
    read_response(response.body, call);
    return record_line(call.n, session, p.endpoint.provider, body, redact(response.body, p.key),
                       attempts.last_started.value_or(started), call.ttft_seconds,
                       call.total_seconds);
}

// The calls in order, each appended to --record as soon as it is answered.
std::string
send_calls(const Prepared& p, const ProbeOptions& options, HttpClient& client, ProbeResult& r)
{
    // Opened before the first call, so an unwritable path costs no call; a
    // file this run created and wrote nothing to is removed when it fails.
    std::optional<std::ofstream> record;
    bool created = false;
    if (options.record) {
        std::error_code ec;
        created = !std::filesystem::exists(*options.record, ec);
        record.emplace(*options.record, std::ios::binary | std::ios::app);
        if (!*record) {
            throw Error(fmt::format("--record {}: cannot open for appending", *options.record));
        }
    }
    struct RemoveIfUnused {
        const std::optional<std::string>& path;
        const bool& created;
        const std::vector<ProbeCall>& calls;
        ~RemoveIfUnused()
        {
            std::error_code ec;
            if (path && created && calls.empty()) {
                std::filesystem::remove(*path, ec);
            }
        }
    } cleanup{options.record, created, r.calls};
    const std::string session =
        fmt::format("probe-{}", std::chrono::duration_cast<std::chrono::seconds>(
                                    std::chrono::system_clock::now().time_since_epoch())
                                    .count());
    std::string records;
    std::string previous_id;
    for (int n = 1; n <= options.times; ++n) {
        ProbeCall call;
        call.n = n;
        const std::string line = send_call(p, options, client, r.url, session, previous_id, call);
        previous_id = call.message_id;
        if (record) {
            *record << line;
            record->flush();
            if (!*record) {
                throw Error(fmt::format("--record {}: write failed", *options.record));
            }
        }
        records += line;
        r.calls.push_back(std::move(call));
    }
    return records;
}

// The simulator's prediction for the calls as sent, their cost, and CW031.
void
compare_with_prediction(const std::string& records, const ruleset::Rules& rules,
                        const ProbeOptions& options, ProbeResult& r)
{
    const auto audit = audit_records(records, rules, options.file, options);
    r.predicted.clear();
    for (std::size_t i = 0; i < audit.requests.size() && i < r.calls.size(); ++i) {
        const auto& a = audit.requests[i];
        r.predicted.push_back(a.expected);
        if (a.priced) {
            r.calls[i].cost_usd = a.actual.total();
        }
    }
    for (const auto& f : audit.findings) {
        if (f.rule == analysis::rule::k_usage_mismatch) {
            r.findings.push_back(f);
        }
    }
    // The plan's positions were estimated: where the provider's own count of
    // the first call falls outside the estimator's band, say that they were
    // off and by how much (the predictions above are scaled to the count).
    if (r.tokens_exact || r.calls.empty() || !r.calls[0].usage || r.prompt_tokens <= 0) {
        return;
    }
    const auto& u = *r.calls[0].usage;
    const std::int64_t reported = u.read + u.write() + u.fresh;
    const double band = rules.tokens.error_band();
    const double off =
        static_cast<double>(reported - r.prompt_tokens) / static_cast<double>(r.prompt_tokens);
    if (std::abs(off) > band) {
        r.notes.push_back(fmt::format(
            "the provider counted {} prompt tokens where the plan estimated about {} ({:+.0f}%, "
            "outside the estimate's ±{:.0f}%): the plan's token positions were that far off; the "
            "predictions are scaled to the provider's count",
            group_digits(reported), group_digits(r.prompt_tokens), off * 100, band * 100));
    }
}

} // namespace

ProbeResult
probe(const ProbeOptions& options, const ruleset::Rules& rules, HttpClient& client)
{
    const Prepared p = prepare(options, rules);
    ProbeResult r;
    fill_plan(p, options, rules, r);
    if (!options.send) {
        return r;
    }
    if (!p.key && !options.base_url) {
        throw Error(
            fmt::format("no API key: set {} or pass --api-key-file", p.endpoint.key_variable));
    }
    const std::string records = send_calls(p, options, client, r);
    r.sent = true;
    r.connections = client.connections_opened();
    compare_with_prediction(records, rules, options, r);
    return r;
}

} // namespace cachewise::live
