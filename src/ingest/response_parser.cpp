#include "ingest/response_parser.hpp"

#include "ingest/field_error.hpp"
#include "ingest/json_render.hpp"
#include "ingest/ondemand.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <span>

namespace cachewise::ingest {

namespace {

std::string_view
number_text(od::value v)
{
    const std::string_view token = v.raw_json_token();
    return token.substr(0, std::min<std::size_t>(40, token.find_first_of(" \t\r\n,}]")));
}

std::int64_t
checked_count(std::int64_t n)
{
    if (n < 0 || n > model::k_max_token_count) {
        throw FieldError("", fmt::format("token count {} is out of range (0 to {}: no model "
                                         "takes more)",
                                         n, model::k_max_token_count));
    }
    return n;
}

std::optional<std::int64_t>
count(od::value v)
{
    if (!present(v, od::json_type::number, "a token count (an integer)")) {
        return std::nullopt;
    }
    std::int64_t n = 0;
    if (v.get_int64().get(n) != simdjson::SUCCESS) {
        throw FieldError("", fmt::format("expected a token count (an integer from 0 to {}), "
                                         "found {}",
                                         model::k_max_token_count, number_text(v)));
    }
    return checked_count(n);
}

std::string
string_or_empty(od::value v)
{
    if (get(v.type(), "a value") != od::json_type::string) {
        return {};
    }
    return std::string(get(v.get_string(), "a string"));
}

void
add(std::optional<std::int64_t>& into, const std::optional<std::int64_t>& v)
{
    if (v) {
        into = checked_count(into.value_or(0) + *v); // each at most k_max_token_count
    }
}

// The counts of Anthropic's dialect, which is what a compaction iteration
// reports, and those of the other dialects.
using Count = std::optional<std::int64_t> model::Usage::*;
constexpr std::array<Count, 6> k_anthropic_counts = {
    &model::Usage::input_tokens, &model::Usage::output_tokens,  &model::Usage::cache_read,
    &model::Usage::cache_write,  &model::Usage::cache_write_5m, &model::Usage::cache_write_1h};
constexpr std::array<Count, 5> k_other_counts = {
    &model::Usage::prompt_tokens, &model::Usage::cached_tokens, &model::Usage::cache_write_tokens,
    &model::Usage::hit_tokens, &model::Usage::miss_tokens};

} // namespace

void
merge_usage(model::Usage& into, const model::Usage& update)
{
    const auto take = [](auto& dst, const auto& src) {
        if (src) {
            dst = src;
        }
    };
    for (const auto member : k_anthropic_counts) {
        take(into.*member, update.*member);
    }
    for (const auto member : k_other_counts) {
        take(into.*member, update.*member);
    }
    if (update.schema == model::UsageSchema::inclusive) {
        into.schema = update.schema;
        into.dialect = update.dialect;
    }
    into.summed_from_iterations = into.summed_from_iterations || update.summed_from_iterations;
}

namespace {

// Bedrock's cacheDetails: [{"ttl": "5m" | "1h", "inputTokens": N}, ...].
void
bedrock_cache_details(od::value v, model::Usage& u)
{
    if (get(v.type(), "an array") != od::json_type::array) {
        return;
    }
    std::size_t i = 0;
    for (auto element : get(v.get_array(), "an array")) {
        od::value d = get(element, "a cache detail");
        within("", i++, [&] {
            if (get(d.type(), "an object") != od::json_type::object) {
                return;
            }
            std::string ttl;
            std::optional<std::int64_t> tokens;
            for (auto f : get(d.get_object(), "an object")) {
                od::value n = get(f.value(), "a value");
                const auto k = key_of(f);
                if (k == "ttl") {
                    ttl = string_or_empty(n);
                } else if (k == "inputTokens") {
                    tokens = within("inputTokens", [&] { return count(n); });
                }
            }
            if (tokens) {
                add(ttl == "1h" ? u.cache_write_1h : u.cache_write_5m, tokens);
            }
        });
    }
}

} // namespace

namespace {

// Whose field names a usage object uses, as far as its keys tell.
struct UsageShape {
    bool input_details = false; // input_tokens_details: the Responses API
    bool camel = false;         // Bedrock
    bool gemini = false;        // usageMetadata
    std::optional<std::int64_t> thoughts;
    std::optional<std::int64_t> gemini_total; // a cachedContents.create reports only this
};

// The plain counts of every dialect: key, the member it fills, and what the
// key says of the dialect.
enum class Mark : std::uint8_t { none, camel, gemini };
struct CountField {
    std::string_view key;
    std::optional<std::int64_t> model::Usage::*member;
    Mark mark = Mark::none;
};
constexpr std::array k_count_fields = {
    CountField{"input_tokens", &model::Usage::input_tokens},
    CountField{"output_tokens", &model::Usage::output_tokens},
    CountField{"completion_tokens", &model::Usage::output_tokens},
    CountField{"cache_read_input_tokens", &model::Usage::cache_read},
    CountField{"cache_creation_input_tokens", &model::Usage::cache_write},
    CountField{"prompt_tokens", &model::Usage::prompt_tokens},
    CountField{"prompt_cache_hit_tokens", &model::Usage::hit_tokens},
    CountField{"prompt_cache_miss_tokens", &model::Usage::miss_tokens},
    CountField{"inputTokens", &model::Usage::input_tokens, Mark::camel},
    CountField{"outputTokens", &model::Usage::output_tokens, Mark::camel},
    CountField{"cacheReadInputTokens", &model::Usage::cache_read, Mark::camel},
    CountField{"cacheWriteInputTokens", &model::Usage::cache_write, Mark::camel},
    CountField{"promptTokenCount", &model::Usage::prompt_tokens, Mark::gemini},
    CountField{"prompt_token_count", &model::Usage::prompt_tokens, Mark::gemini},
    CountField{"cachedContentTokenCount", &model::Usage::cached_tokens, Mark::gemini},
    CountField{"cached_content_token_count", &model::Usage::cached_tokens, Mark::gemini},
    CountField{"candidatesTokenCount", &model::Usage::output_tokens, Mark::gemini},
    CountField{"candidates_token_count", &model::Usage::output_tokens, Mark::gemini},
};

// The details objects of OpenAI-style usage (prompt_tokens_details,
// input_tokens_details) and Anthropic's cache_creation (the writes of each
// TTL): counts under keys of their own.
constexpr std::array k_detail_fields = {
    CountField{"cached_tokens", &model::Usage::cached_tokens},
    CountField{"cache_write_tokens", &model::Usage::cache_write_tokens},
    // LiteLLM's name for Anthropic writes.
    CountField{"cache_creation_tokens", &model::Usage::cache_write_tokens},
};
constexpr std::array k_cache_creation_fields = {
    CountField{"ephemeral_5m_input_tokens", &model::Usage::cache_write_5m},
    CountField{"ephemeral_1h_input_tokens", &model::Usage::cache_write_1h},
};

// The field of `fields` named `key`, or null.
const CountField*
count_field(std::span<const CountField> fields, std::string_view key)
{
    const auto it = std::find_if(fields.begin(), fields.end(),
                                 [&](const CountField& f) { return f.key == key; });
    return it == fields.end() ? nullptr : &*it;
}

// The counts an object holds under the keys of `fields`; other keys, and a
// value that is not an object, are passed over.
void
nested_counts(od::value v, model::Usage& u, std::span<const CountField> fields)
{
    if (get(v.type(), "an object") != od::json_type::object) {
        return;
    }
    for (auto f : get(v.get_object(), "an object")) {
        od::value n = get(f.value(), "a value");
        if (const CountField* field = count_field(fields, key_of(f))) {
            u.*(field->member) = within(field->key, [&] { return count(n); });
        }
    }
}

// The schema: inclusive when a prompt total is reported (OpenAI, DeepSeek,
// Gemini, gateways) or when input_tokens is the Responses API's total.
void
settle_schema(model::Usage& u, const UsageShape& shape, bool responses_api)
{
    if (shape.thoughts) {
        // Gemini bills thinking as output but reports it apart.
        u.output_tokens = u.output_tokens.value_or(0) + *shape.thoughts;
    }
    if (shape.gemini && !u.prompt_tokens && shape.gemini_total) {
        u.prompt_tokens = *shape.gemini_total - u.output_tokens.value_or(0);
    }
    if (u.prompt_tokens || u.hit_tokens || u.miss_tokens) {
        u.schema = model::UsageSchema::inclusive;
        u.dialect = shape.gemini                      ? "gemini"
                    : (u.hit_tokens || u.miss_tokens) ? "deepseek"
                    : (u.cache_read || u.cache_write) ? "litellm"
                                                      : "openai";
    } else if (shape.input_details || responses_api) {
        u.schema = model::UsageSchema::inclusive;
        u.dialect = "openai-responses";
        u.prompt_tokens = u.input_tokens;
        u.input_tokens.reset();
    } else {
        u.dialect = shape.camel ? "bedrock" : "anthropic";
    }
}

} // namespace

// Compaction responses report each internal iteration; the top level may
// hold only the last one. Returns how many there were, their sum in `sum`.
std::size_t
ResponseParser::sum_iterations(od::value v, model::Usage& sum)
{
    if (get(v.type(), "an array") != od::json_type::array) {
        return 0;
    }
    std::size_t i = 0;
    for (auto element : get(v.get_array(), "an array")) {
        od::value it = get(element, "an iteration");
        const model::Usage part = within("", i++, [&] { return parse_usage(it); });
        for (const auto member : k_anthropic_counts) {
            add(sum.*member, part.*member);
        }
    }
    return i;
}

model::Usage
ResponseParser::parse_usage(od::value value, bool responses_api)
{
    const auto t = get(value.type(), "a usage object");
    if (t != od::json_type::object) {
        throw FieldError("", fmt::format("expected a usage object, found {}", describe(t)));
    }
    model::Usage u;
    model::Usage sum;
    std::size_t iterations = 0;
    UsageShape shape;
    for (auto field : get(value.get_object(), "an object")) {
        const auto key = key_of(field);
        od::value v = get(field.value(), "a value");
        const std::string name(key);
        const auto read_count = [&] { return within(name, [&] { return count(v); }); };
        if (const CountField* plain = count_field(k_count_fields, key)) {
            u.*(plain->member) = read_count();
            shape.camel = shape.camel || plain->mark == Mark::camel;
            shape.gemini = shape.gemini || plain->mark == Mark::gemini;
        } else if (key == "cost") {
            // OpenRouter's charge for the call; any other shape is not a cost.
            double usd = 0;
            if (v.get_double().get(usd) == simdjson::SUCCESS && usd >= 0) {
                u.cost_usd = usd;
            }
        } else if (key == "prompt_tokens_details" || key == "input_tokens_details") {
            shape.input_details = shape.input_details || key == "input_tokens_details";
            within(name, [&] { nested_counts(v, u, k_detail_fields); });
        } else if (key == "cacheDetails") {
            within(name, [&] { bedrock_cache_details(v, u); });
        } else if (key == "thoughtsTokenCount" || key == "thoughts_token_count") {
            shape.thoughts = read_count();
        } else if (key == "totalTokenCount" || key == "total_token_count") {
            shape.gemini = true;
            shape.gemini_total = read_count();
        } else if (key == "cache_creation") {
            within("cache_creation", [&] { nested_counts(v, u, k_cache_creation_fields); });
        } else if (key == "iterations") {
            iterations = within("iterations", [&] { return sum_iterations(v, sum); });
        }
    }
    settle_schema(u, shape, responses_api);
    if (iterations > 1 && sum.total_input().value_or(0) > u.total_input().value_or(0)) {
        sum.summed_from_iterations = true;
        sum.cost_usd = u.cost_usd;
        return sum;
    }
    return u;
}

namespace {

// An OpenAI-style usage count is the Responses API's inclusive total once the
// object says it is a Responses object (the key may come after "usage").
void
as_responses_usage(model::Usage& u)
{
    if (u.schema == model::UsageSchema::exclusive && u.dialect == "anthropic") {
        u.schema = model::UsageSchema::inclusive;
        u.dialect = "openai-responses";
        u.prompt_tokens = u.input_tokens;
        u.input_tokens.reset();
    }
}

bool
is_null(od::value& v)
{
    return get(v.type(), "a value") == od::json_type::null;
}

std::string
error_text(od::value v)
{
    const auto t = get(v.type(), "a value");
    if (t == od::json_type::string) {
        return string_or_empty(v);
    }
    if (t != od::json_type::object) {
        return "error";
    }
    std::string type;
    std::string message;
    for (auto f : get(v.get_object(), "an object")) {
        od::value e = get(f.value(), "a value");
        const auto k = key_of(f);
        if (k == "type" || k == "code" || k == "status") {
            if (type.empty()) {
                type = string_or_empty(e);
            }
        } else if (k == "message") {
            message = string_or_empty(e);
        }
    }
    if (type.empty()) {
        return message.empty() ? "error" : message;
    }
    return message.empty() ? type : fmt::format("{}: {}", type, message);
}

// {"cache_miss_reason": "system_changed" | null, ...}: the reason, "" for null.
std::optional<std::string>
miss_reason(od::value v)
{
    if (get(v.type(), "an object") != od::json_type::object) {
        return std::nullopt;
    }
    std::optional<std::string> reason = std::string();
    for (auto f : get(v.get_object(), "an object")) {
        if (key_of(f) == "cache_miss_reason") {
            od::value r = get(f.value(), "a value");
            reason = is_null(r) ? std::string() : string_or_empty(r);
        }
    }
    return reason;
}

void
set_or_merge(std::optional<model::Usage>& into, const model::Usage& u)
{
    if (into) {
        merge_usage(*into, u);
    } else {
        into = u;
    }
}

} // namespace

void
ResponseParser::message_object(od::object object, ResponseInfo& info)
{
    for (auto field : object) {
        const auto key = key_of(field);
        od::value v = get(field.value(), "a value");
        if (key == "usage" || key == "usageMetadata" || key == "usage_metadata") {
            if (is_null(v)) {
                continue;
            }
            const std::string name(key);
            set_or_merge(info.usage,
                         within(name, [&] { return parse_usage(v, info.responses_api); }));
        } else if (key == "id") {
            info.message_id = string_or_empty(v);
        } else if (key == "model" || key == "modelVersion" || key == "model_version") {
            info.model = string_or_empty(v);
        } else if (key == "provider") {
            info.route = string_or_empty(v); // OpenRouter: the upstream that served it
        } else if (key == "created" || key == "created_at" || key == "completed_at") {
            double seconds = 0;
            if (get(v.type(), "a value") == od::json_type::number &&
                v.get_double().get(seconds) == simdjson::SUCCESS) {
                (key == "completed_at" ? info.completed : info.created) = seconds;
            }
        } else if (key == "object") {
            if (string_or_empty(v) == "response") {
                info.responses_api = true;
            }
        } else if (key == "name") {
            const std::string name = string_or_empty(v);
            if (name.rfind("cachedContents/", 0) == 0) {
                info.cache_name = name;
            }
        } else if (key == "expireTime" || key == "expire_time") {
            info.cache_expire = string_or_empty(v);
        } else if (key == "choices") {
            // The first choice's message, as the next turn sends it back.
            within("choices", [&] {
                if (get(v.type(), "an array") != od::json_type::array) {
                    return;
                }
                for (auto element : get(v.get_array(), "an array")) {
                    od::value choice = get(element, "a choice");
                    if (get(choice.type(), "a choice") != od::json_type::object) {
                        break;
                    }
                    for (auto f : get(choice.get_object(), "an object")) {
                        if (key_of(f) == "message") {
                            od::value m = get(f.value(), "a message");
                            if (get(m.type(), "a message") == od::json_type::object) {
                                od::object mo = get(m.get_object(), "a message");
                                info.message_json = std::string(get(mo.raw_json(), "a message"));
                            }
                        }
                    }
                    break;
                }
            });
        } else if (key == "output") {
            if (get(v.type(), "an array") == od::json_type::array) {
                od::array items = get(v.get_array(), "an array");
                info.message_json = std::string(get(items.raw_json(), "the output items"));
            }
        } else if (key == "error") {
            if (!is_null(v)) {
                info.error = error_text(v);
            }
        } else if (key == "diagnostics") {
            info.cache_miss_reason = within("diagnostics", [&] { return miss_reason(v); });
        }
    }
    if (info.responses_api && info.usage) {
        as_responses_usage(*info.usage);
    }
}

void
ResponseParser::event_object(od::object object, ResponseInfo& info)
{
    // Anthropic: {"type":"message_start","message":{...}} | {"type":"message_delta",
    // "usage":{...}} | {"type":"error",...}; Responses: {"type":"response.completed",
    // "response":{...}}; OpenAI and Gemini chunks: the response object itself;
    // Bedrock ConverseStream: {"metadata":{"usage":{...}}}. Keys come in any order.
    std::string type;
    ResponseInfo nested;
    ResponseInfo flat;
    for (auto field : object) {
        const auto key = key_of(field);
        od::value v = get(field.value(), "a value");
        if (key == "type") {
            type = string_or_empty(v);
        } else if (key == "message" || key == "response" || key == "metadata") {
            if (get(v.type(), "an object") == od::json_type::object) {
                const std::string name(key);
                within(name, [&] { message_object(get(v.get_object(), "an object"), nested); });
            }
        } else if (key == "usage" || key == "usageMetadata" || key == "usage_metadata") {
            if (!is_null(v)) {
                const std::string name(key);
                set_or_merge(flat.usage, within(name, [&] { return parse_usage(v); }));
            }
        } else if (key == "model" || key == "modelVersion" || key == "model_version") {
            flat.model = string_or_empty(v);
        } else if (key == "provider") {
            flat.route = string_or_empty(v);
        } else if (key == "object") {
            flat.responses_api = string_or_empty(v) == "response";
        } else if (key == "id") {
            flat.message_id = string_or_empty(v);
        } else if (key == "error") {
            if (!is_null(v)) {
                flat.error = error_text(v);
            }
        } else if (key == "diagnostics") {
            flat.cache_miss_reason = within("diagnostics", [&] { return miss_reason(v); });
        }
    }
    if (type == "message_start") {
        info.message_id = nested.message_id;
        info.model = nested.model;
        if (nested.usage) {
            info.usage = nested.usage;
        }
        if (nested.cache_miss_reason) {
            info.cache_miss_reason = nested.cache_miss_reason;
        }
        return;
    }
    if (type == "error" || (type.empty() && !flat.error.empty())) {
        info.error = flat.error.empty() ? "error" : flat.error;
        return;
    }
    for (ResponseInfo* part : {&nested, &flat}) {
        if (part->usage) {
            set_or_merge(info.usage, *part->usage);
        }
        if (!part->model.empty()) {
            info.model = part->model;
        }
        if (!part->route.empty()) {
            info.route = part->route;
        }
        if (!part->message_id.empty() && info.message_id.empty()) {
            info.message_id = part->message_id;
        }
        if (!part->error.empty()) {
            info.error = part->error;
        }
        if (part->cache_miss_reason) {
            info.cache_miss_reason = part->cache_miss_reason;
        }
        info.responses_api = info.responses_api || part->responses_api;
    }
    if (info.responses_api && info.usage) {
        as_responses_usage(*info.usage);
    }
}

void
ResponseParser::sse_data(std::string_view json, ResponseInfo& info)
{
    if (json.empty() || json == "[DONE]") {
        return;
    }
    simdjson::padded_string padded(json);
    od::document doc;
    if (const auto error = iterate_twice_room(m_parser, padded).get(doc); error) {
        throw FieldError("data", fmt::format("not valid JSON: {}", simdjson::error_message(error)));
    }
    od::object object;
    if (doc.get_object().get(object) != simdjson::SUCCESS) {
        throw FieldError("data", "expected a JSON object");
    }
    event_object(object, info);
}

void
ResponseParser::sse_line(std::string_view line, ResponseInfo& info)
{
    if (line.empty()) {
        // A blank line ends an event.
        if (!m_data.empty()) {
            std::string data;
            data.swap(m_data);
            sse_data(data, info);
        }
        return;
    }
    if (line.rfind("data:", 0) == 0) {
        std::string_view payload = line.substr(5);
        if (!payload.empty() && payload.front() == ' ') {
            payload.remove_prefix(1);
        }
        if (!m_data.empty()) {
            m_data.push_back('\n');
        }
        m_data.append(payload);
    }
    // "event:", "id:", "retry:" and ":" comments carry nothing we need: the
    // data's own "type" names the event.
}

ResponseInfo
ResponseParser::parse_value(od::value value)
{
    ResponseInfo info;
    const auto t = get(value.type(), "a response");
    if (t == od::json_type::null) {
        return info;
    }
    if (t == od::json_type::object) {
        message_object(get(value.get_object(), "an object"), info);
        return info;
    }
    if (t == od::json_type::string) {
        // A raw SSE stream kept as text. Copy: the view lives in the caller's parser.
        const std::string text(get(value.get_string(), "a string"));
        std::size_t begin = 0;
        m_data.clear();
        while (begin <= text.size()) {
            std::size_t end = text.find('\n', begin);
            if (end == std::string::npos) {
                end = text.size();
            }
            std::string_view line(text.data() + begin, end - begin);
            if (!line.empty() && line.back() == '\r') {
                line.remove_suffix(1);
            }
            sse_line(line, info);
            begin = end + 1;
        }
        sse_line("", info);
        if (info.usage) {
            info.usage->origin = model::Usage::Origin::sse;
        }
        return info;
    }
    if (t == od::json_type::array) {
        std::size_t i = 0;
        for (auto element : get(value.get_array(), "an array")) {
            od::value event = get(element, "an event");
            within("", i++, [&] {
                if (get(event.type(), "an event") != od::json_type::object) {
                    throw FieldError("", "expected an SSE event object");
                }
                event_object(get(event.get_object(), "an object"), info);
            });
        }
        if (info.usage) {
            info.usage->origin = model::Usage::Origin::sse;
        }
        return info;
    }
    throw FieldError(
        "", fmt::format("expected a response object, an SSE stream or an event array, found {}",
                        describe(t)));
}

} // namespace cachewise::ingest
