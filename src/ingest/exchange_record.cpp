// One exchange record or bare request body: its members read through one
// table of the record's own fields, everything else handed to the body
// parser of the record's API.
#include "ingest/exchange_fields.hpp"
#include "ingest/inputs.hpp"
#include "ingest/record_reader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>

namespace cachewise::ingest {

namespace {

// What a record's own fields say, gathered while its members are read.
struct RecordContext {
    RecordContext(const ruleset::Rules& r, ResponseParser& rp, BodyParser& b, model::Request& q,
                  ApiFormatDetector* k)
        : rules(r), responses(rp), body(b), request(q), keys(k)
    {}

    const ruleset::Rules& rules;
    ResponseParser& responses;
    BodyParser& body;
    model::Request& request;
    ApiFormatDetector* keys; // sees every body member, for the check of a kept format
    bool wrapped = false;    // a "request" member
    bool bare = false;       // request fields at the top level
    std::optional<ResponseInfo> response;
    std::string id;
    std::string session;
    std::string provider;
    std::optional<double> timestamp;
    std::optional<double> latency;
    std::optional<double> cost; // LiteLLM's cost or response_cost
};

// The time `parsed` holds, or its error as the field's.
template <typename Parsed>
Timestamp
time_or_throw(Parsed parsed)
{
    if (!parsed) {
        throw FieldError("", parsed.error());
    }
    return *parsed;
}

Timestamp
time_value(od::value v)
{
    od::json_type t{};
    if (v.type().get(t) != simdjson::SUCCESS) {
        throw FieldError("", "expected a time");
    }
    if (t == od::json_type::string) {
        std::string_view s;
        if (v.get_string().get(s) != simdjson::SUCCESS) {
            throw FieldError("", "expected a time");
        }
        return time_or_throw(parse_rfc3339(s));
    }
    if (t == od::json_type::number) {
        double d = 0;
        if (v.get_double().get(d) != simdjson::SUCCESS) {
            throw FieldError("", "expected epoch seconds");
        }
        return time_or_throw(from_epoch_seconds(d));
    }
    throw FieldError(
        "", fmt::format("expected an RFC 3339 string or epoch seconds, found {}", describe(t)));
}

std::string
string_member(od::value v, std::string_view name)
{
    return within(name, [&] {
        std::string_view s;
        if (v.get_string().get(s)) {
            throw FieldError("", "expected a string");
        }
        return std::string(s);
    });
}

double
number_member(od::value v, std::string_view name)
{
    return within(name, [&] {
        double d = 0;
        if (v.get_double().get(d)) {
            throw FieldError("", "expected a number");
        }
        return d;
    });
}

void
read_body(RecordContext& c, std::string_view, od::value v)
{
    within("request", [&] {
        od::object body;
        if (v.get_object().get(body) != simdjson::SUCCESS) {
            throw FieldError("", "expected a request body object");
        }
        for (auto member : body) {
            std::string_view k;
            od::value mv;
            if (member.unescaped_key().get(k) || member.value().get(mv)) {
                throw FieldError("", "invalid member");
            }
            const std::string owned(k); // the key view does not outlive the member
            if (c.keys != nullptr) {
                c.keys->key(owned);
            }
            c.body.member(owned, mv);
        }
    });
    c.wrapped = true;
}

void
read_response(RecordContext& c, std::string_view, od::value v)
{
    c.response = within("response", [&] { return c.responses.parse_value(v); });
}

void
read_id(RecordContext& c, std::string_view, od::value v)
{
    c.id = within("id", [&] {
        od::json_type t{};
        (void)v.type().get(t);
        if (t == od::json_type::string) {
            return std::string(v.get_string().value());
        }
        if (t == od::json_type::number) {
            return std::string(v.raw_json_token());
        }
        throw FieldError("", fmt::format("expected a string or a number, found {}", describe(t)));
    });
    while (!c.id.empty() && c.id.back() == ' ') {
        c.id.pop_back();
    }
}

void
read_session(RecordContext& c, std::string_view key, od::value v)
{
    c.session = string_member(v, key);
}

void
read_workspace(RecordContext& c, std::string_view key, od::value v)
{
    c.request.workspace = string_member(v, key);
}

void
read_provider(RecordContext& c, std::string_view key, od::value v)
{
    if (v.type().value_unsafe() == od::json_type::object) {
        return; // OpenRouter's routing preferences in a bare body: not the provider whose
                // cache serves the request.
    }
    c.provider = string_member(v, key);
    if (!c.rules.providers.contains(c.provider)) {
        throw FieldError("provider", fmt::format("unknown provider \"{}\" (expected one of "
                                                 "anthropic, bedrock, openai, deepseek, gemini, "
                                                 "vllm, sglang)",
                                                 c.provider));
    }
}

// startTime, completionStartTime, endTime: LiteLLM's logging payload.
void
read_started(RecordContext& c, std::string_view key, od::value v)
{
    c.request.started_at = within(key, [&] { return time_value(v); });
}

void
read_first_token(RecordContext& c, std::string_view key, od::value v)
{
    c.request.first_token_at = within(key, [&] { return time_value(v); });
}

void
read_ended(RecordContext& c, std::string_view key, od::value v)
{
    c.request.ended_at = within(key, [&] { return time_value(v); });
}

// Per-call logs (OpenHands): when the call was logged, after it ended.
void
read_timestamp(RecordContext& c, std::string_view key, od::value v)
{
    c.timestamp = number_member(v, key);
}

void
read_latency(RecordContext& c, std::string_view key, od::value v)
{
    c.latency = number_member(v, key);
}

void
read_cost(RecordContext& c, std::string_view, od::value v)
{
    double usd = 0;
    if (v.get_double().get(usd) == simdjson::SUCCESS && usd >= 0) {
        c.cost = usd; // anything else is not a cost: ignored
    }
}

// The call's keyword arguments (OpenHands, LiteLLM): settings such as
// tool_choice; tools and messages are logged beside.
void
read_kwargs(RecordContext& c, std::string_view, od::value v)
{
    within("kwargs", [&] {
        od::object kwargs;
        if (v.get_object().get(kwargs) != simdjson::SUCCESS) {
            return;
        }
        for (auto member : kwargs) {
            const std::string k(key_of(member));
            if (k != "tools" && k != "messages" && k != "functions" && k != "model") {
                c.body.member(k, value_of(member));
            }
        }
    });
}

// A member of an OpenTelemetry span or a trajectory: not a body at all.
void
mark_shape(RecordContext& c, std::string_view, od::value)
{
    if (c.keys != nullptr) {
        c.keys->key("\x01shape"); // look again
    }
}

using FieldReader = void (*)(RecordContext&, std::string_view, od::value);

struct RecordField {
    std::string_view key;
    FieldReader read;       // nullptr: known and ignored
    bool record_key = true; // false: a body wrapper or a member of another shape
};

constexpr std::array k_record_fields = {
    RecordField{"request", read_body, false},
    RecordField{"response", read_response},
    RecordField{"id", read_id},
    RecordField{"session", read_session},
    RecordField{"workspace", read_workspace},
    RecordField{"provider", read_provider},
    RecordField{"started_at", read_started},
    RecordField{"startTime", read_started},
    RecordField{"first_token_at", read_first_token},
    RecordField{"completionStartTime", read_first_token},
    RecordField{"ended_at", read_ended},
    RecordField{"endTime", read_ended},
    RecordField{"timestamp", read_timestamp},
    RecordField{"latency_sec", read_latency},
    RecordField{"cost", read_cost},
    RecordField{"response_cost", read_cost},
    RecordField{"kwargs", read_kwargs},
    RecordField{"context_window", nullptr},
    RecordField{"raw_messages", nullptr},
    RecordField{"raw_response", nullptr},
    RecordField{"resourceSpans", mark_shape, false},
    RecordField{"trajectory_format", mark_shape, false},
    RecordField{"attributes", mark_shape, false},
    RecordField{"traceId", mark_shape, false},
    RecordField{"spanId", mark_shape, false},
};

const RecordField*
find_field(std::string_view key)
{
    const auto it = std::find_if(k_record_fields.begin(), k_record_fields.end(),
                                 [&](const RecordField& f) { return f.key == key; });
    return it == k_record_fields.end() ? nullptr : &*it;
}

void
read_member(RecordContext& c, std::string_view key, od::value v)
{
    if (const RecordField* field = find_field(key)) {
        if (field->read != nullptr) {
            field->read(c, key, v);
        }
        return;
    }
    const std::string owned(key);
    if (c.keys != nullptr) {
        c.keys->key(owned);
    }
    if (c.body.member(owned, v)) {
        c.bare = true;
    }
}

// What the record's own fields say about the request, once all are read.
void
settle_record(RecordContext& c, const std::string& file, std::uint64_t line)
{
    if (c.wrapped && c.bare) {
        throw FieldError("request", "a record has either a \"request\" member or request fields "
                                    "at the top level, not both");
    }
    if (!c.wrapped && !c.bare) {
        throw FieldError("request", "missing (expected {\"request\": {...}, \"response\": {...}} "
                                    "or a request body of a known API)");
    }
    c.request.id = c.id.empty() ? fmt::format("{}:{}", shown_path(file), line) : c.id;
    c.request.id_given = !c.id.empty();
    if (!c.session.empty()) {
        c.request.stream = c.session;
    }
    if (c.timestamp && !c.request.started_at) {
        const double start = *c.timestamp - c.latency.value_or(0);
        if (auto t = from_epoch_seconds(start)) {
            c.request.started_at = *t;
        }
        if (auto t = from_epoch_seconds(*c.timestamp); t && c.latency) {
            c.request.ended_at = *t;
        }
    }
}

} // namespace

bool
is_record_key(std::string_view key)
{
    const RecordField* field = find_field(key);
    return field != nullptr && field->record_key;
}

// Parses a body record with the parser of `format`; `keys` (when given)
// sees every body member on the way, for the check of a kept format.
model::Request
RecordReader::body_record(od::object& object, model::ApiFormat format, const std::string& file,
                          std::uint64_t line, ApiFormatDetector* keys)
{
    BodyParser& reader = parser_for(format);
    model::Request request;
    request.file = file;
    request.line = line;
    reader.begin(request);
    RecordContext c{m_rules, m_response_parser, reader, request, keys};
    for (auto field : object) {
        std::string_view key;
        if (const auto e = field.unescaped_key().get(key); e) {
            throw FieldError("", fmt::format("invalid key: {}", simdjson::error_message(e)));
        }
        od::value v;
        if (const auto e = field.value().get(v); e) {
            throw FieldError(std::string(key), simdjson::error_message(e));
        }
        read_member(c, key, v);
    }
    settle_record(c, file, line);
    std::string fallback_model;
    if (c.response) {
        apply_response(*c.response, c.cost, c.provider, request);
        fallback_model = c.response->model;
    }
    if (!c.provider.empty()) {
        reader.set_provider_override(c.provider);
    }
    reader.finish(fallback_model);
    if (c.response) {
        after_finish(*c.response, reader, request);
    }
    return request;
}

// What the logged response says about the request, before the body parser
// finishes it (its model is the fallback when the request names none).
void
RecordReader::apply_response(const ResponseInfo& response, std::optional<double> cost,
                             std::string& provider, model::Request& request)
{
    if (!response.error.empty()) {
        request.notes.push_back(std::string(model::k_error_response_note) + response.error);
    }
    request.usage = response.usage;
    if (request.usage && cost && !request.usage->cost_usd) {
        request.usage->cost_usd = cost;
    }
    request.provider_miss_reason = response.cache_miss_reason;
    request.route = response.route;
    if (response.usage && response.usage->summed_from_iterations) {
        request.notes.emplace_back("usage summed from usage.iterations[] (a compaction response)");
    }
    if (!request.started_at && response.created) {
        if (auto t = from_epoch_seconds(*response.created)) {
            request.started_at = *t; // the response's creation time, about the start
        }
    }
    if (!request.ended_at && response.completed) {
        if (auto t = from_epoch_seconds(*response.completed)) {
            request.ended_at = *t;
        }
    }
    // DeepSeek's usage names it even behind a gateway with another model name.
    if (provider.empty() && response.usage && response.usage->dialect == "deepseek") {
        provider = "deepseek";
    }
}

// What the response adds once the request is finished: the model that
// served it, the explicit cache it created, the message it answered with.
void
RecordReader::after_finish(const ResponseInfo& response, BodyParser& reader,
                           model::Request& request)
{
    if (!response.model.empty() &&
        ruleset::normalize_model_id(response.model) != ruleset::normalize_model_id(request.model)) {
        request.served_model = response.model;
    }
    if (request.cache_create && !response.cache_name.empty()) {
        // What requests that read this cache have as their prefix.
        m_sink->cache_created(response.cache_name, request.segments);
    }
    if (request.cache_create) {
        request.cache_create->name = response.cache_name;
        if (!request.cache_create->expire_time && !response.cache_expire.empty()) {
            if (auto t = parse_rfc3339(response.cache_expire)) {
                request.cache_create->expire_time = *t;
            }
        }
    }
    if (response.responses_api) {
        request.response_id = response.message_id;
    }
    if (!response.message_json.empty()) {
        try {
            reader.continuation(response.message_json);
        } catch (const FieldError& e) {
            request.notes.push_back(fmt::format(
                "the response message could not be read back ({}: {})", e.field(), e.reason()));
        }
    }
}

} // namespace cachewise::ingest
