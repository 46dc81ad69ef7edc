#include "ingest/otel_spans.hpp"

#include "ingest/field_error.hpp"
#include "ingest/ondemand.hpp"
#include "util/time.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>

namespace cachewise::ingest {

using nlohmann::json;

namespace {

// An attribute value: OTLP's {"stringValue": ...} / {"intValue": "123"}, or a
// plain JSON scalar.
struct Attr {
    std::string text;
    std::optional<std::int64_t> number;
};

std::optional<std::int64_t>
to_integer(std::string_view s)
{
    std::int64_t n = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
    if (ec != std::errc() || end != s.data() + s.size()) {
        return std::nullopt;
    }
    return n;
}

Attr
scalar(od::value v)
{
    Attr a;
    switch (type_of(v)) {
    case od::json_type::string:
        a.text = std::string(get(v.get_string(), "a string"));
        a.number = to_integer(a.text);
        break;
    case od::json_type::number: {
        const std::string_view token = v.raw_json_token();
        a.text = std::string(token.substr(0, token.find_first_of(" \t\r\n,}]")));
        double d = 0;
        // Only a whole number that int64 holds converts (a cast of any other
        // double is undefined).
        if (v.get_double().get(d) == simdjson::SUCCESS && d == std::trunc(d) && d >= -9.2e18 &&
            d <= 9.2e18) {
            a.number = static_cast<std::int64_t>(d);
        }
        break;
    }
    case od::json_type::boolean:
        a.text = get(v.get_bool(), "a boolean") ? "true" : "false";
        break;
    case od::json_type::array: {
        od::array array = get(v.get_array(), "an array");
        a.text = std::string(get(array.raw_json(), "an array"));
        break;
    }
    case od::json_type::object: {
        od::object object = get(v.get_object(), "an object");
        a.text = std::string(get(object.raw_json(), "an object"));
        break;
    }
    case od::json_type::null:
        break;
    }
    return a;
}

// {"stringValue": "x"} | {"intValue": "3"} | {"doubleValue": 1.5} | {"boolValue": true}
Attr
otlp_value(od::value v)
{
    if (type_of(v) != od::json_type::object) {
        return scalar(v);
    }
    Attr a;
    for (auto f : get(v.get_object(), "an object")) {
        a = scalar(value_of(f)); // exactly one member
    }
    return a;
}

using Attrs = std::map<std::string, Attr, std::less<>>;

void
attributes(od::value v, Attrs& out)
{
    const auto t = type_of(v);
    if (t == od::json_type::object) {
        for (auto f : get(v.get_object(), "an object")) {
            const std::string key(key_of(f));
            out[key] = scalar(value_of(f));
        }
        return;
    }
    if (t != od::json_type::array) {
        wrong_type("a list of attributes", t);
    }
    for (auto element : get(v.get_array(), "an array")) {
        od::value kv = get(element, "an attribute");
        if (type_of(kv) != od::json_type::object) {
            continue;
        }
        std::string key;
        Attr value;
        for (auto f : get(kv.get_object(), "an object")) {
            const auto k = key_of(f);
            if (k == "key") {
                od::value kvv = value_of(f);
                key = std::string(get(kvv.get_string(), "a string"));
            } else if (k == "value") {
                value = otlp_value(value_of(f));
            }
        }
        if (!key.empty()) {
            out[key] = std::move(value);
        }
    }
}

const Attr*
find(const Attrs& a, std::initializer_list<std::string_view> names)
{
    for (const auto name : names) {
        if (const auto it = a.find(name); it != a.end()) {
            return &it->second;
        }
    }
    return nullptr;
}

// A token count attribute; one that is not a count from 0 to
// k_max_token_count makes the span a broken record.
std::optional<std::int64_t>
count(const Attrs& a, std::initializer_list<std::string_view> names)
{
    const Attr* v = find(a, names);
    if (v == nullptr) {
        return std::nullopt;
    }
    if (!v->number || *v->number < 0 || *v->number > model::k_max_token_count) {
        throw FieldError(fmt::format("attributes.{}", *names.begin()),
                         fmt::format("expected a token count (an integer from 0 to {}), found {}",
                                     model::k_max_token_count, v->text.substr(0, 40)));
    }
    return v->number;
}

std::string
provider_name(std::string_view system)
{
    if (system == "openai" || system == "azure.ai.openai" || system == "az.ai.openai") {
        return "openai";
    }
    if (system == "anthropic") {
        return "anthropic";
    }
    if (system == "aws.bedrock") {
        return "bedrock";
    }
    if (system.rfind("gcp.", 0) == 0 || system == "gemini" || system == "vertex_ai") {
        return "gemini";
    }
    if (system == "deepseek") {
        return "deepseek";
    }
    return {};
}

// Semantic-convention parts of one message -> Chat Completions messages.
void
convert_message(const json& message, json& out)
{
    const std::string role = message.value("role", "user");
    if (!message.contains("parts") || !message["parts"].is_array()) {
        json m = {{"role", role}, {"content", message.value("content", json())}};
        out.push_back(std::move(m));
        return;
    }
    json content = json::array();
    json calls = json::array();
    for (const auto& part : message["parts"]) {
        const std::string type = part.value("type", "text");
        if (type == "text") {
            content.push_back({{"type", "text"}, {"text", part.value("content", "")}});
        } else if (type == "tool_call") {
            const json& args = part.contains("arguments") ? part["arguments"] : json::object();
            calls.push_back(
                {{"id", part.value("id", "")},
                 {"type", "function"},
                 {"function",
                  {{"name", part.value("name", "")},
                   {"arguments", args.is_string() ? args.get<std::string>() : args.dump()}}}});
        } else if (type == "tool_call_response") {
            const json& r = part.contains("response") ? part["response"] : json();
            out.push_back({{"role", "tool"},
                           {"tool_call_id", part.value("id", "")},
                           {"content", r.is_string() ? r.get<std::string>() : r.dump()}});
        } else if (type == "blob" || type == "uri" || type == "file") {
            content.push_back({{"type", "image_url"}, {"image_url", {{"url", "(media)"}}}});
        }
        // "reasoning" parts are not sent back as prompt text.
    }
    if (content.empty() && calls.empty()) {
        return;
    }
    json m = {{"role", role}};
    m["content"] = content.empty() ? json() : content;
    if (!calls.empty()) {
        m["tool_calls"] = calls;
    }
    out.push_back(std::move(m));
}

json
parse_attr_json(const Attr* a, std::string_view name)
{
    try {
        return json::parse(a->text);
    } catch (const json::exception& e) { // parse_error, or out_of_range for 4e340
        throw FieldError(std::string(name), fmt::format("expected a JSON string: {}", e.what()));
    }
}

// Runs the conversion of an attribute's JSON: a value of another type than
// the semantic conventions give (a number where they give text, a string
// where they give an object) is an error of that attribute, so of this
// record alone, never an exception that ends the load.
template <typename F>
void
converting(std::string_view attribute, F&& f)
{
    try {
        f();
    } catch (const json::exception& e) {
        throw FieldError(
            std::string(attribute),
            fmt::format("not the shape the GenAI semantic conventions give: {}", e.what()));
    }
}

// The prompt as a Chat Completions body; null when the span holds none.
json
body_of(const Attrs& a)
{
    json messages = json::array();
    if (const Attr* s = find(a, {"gen_ai.system_instructions"})) {
        const json parts = parse_attr_json(s, "gen_ai.system_instructions");
        std::string text;
        converting("gen_ai.system_instructions", [&] {
            for (const auto& p : parts.is_array() ? parts : json::array({parts})) {
                text += p.is_string() ? p.get<std::string>() : p.value("content", "");
            }
        });
        messages.push_back({{"role", "system"}, {"content", text}});
    }
    if (const Attr* m = find(a, {"gen_ai.input.messages"})) {
        const json list = parse_attr_json(m, "gen_ai.input.messages");
        if (!list.is_array()) {
            throw FieldError("gen_ai.input.messages", "expected a JSON array of messages");
        }
        converting("gen_ai.input.messages", [&] {
            for (const auto& message : list) {
                convert_message(message, messages);
            }
        });
    } else {
        // Older instrumentations: gen_ai.prompt.<i>.role / .content.
        for (int i = 0;; ++i) {
            const Attr* content = find(a, {fmt::format("gen_ai.prompt.{}.content", i)});
            if (content == nullptr) {
                break;
            }
            const Attr* role = find(a, {fmt::format("gen_ai.prompt.{}.role", i)});
            messages.push_back(
                {{"role", role != nullptr ? role->text : "user"}, {"content", content->text}});
        }
    }
    if (messages.empty()) {
        return json();
    }
    json body = {{"messages", messages}};
    if (const Attr* t = find(a, {"gen_ai.tool.definitions"})) {
        json tools = json::array();
        converting("gen_ai.tool.definitions", [&] {
            for (const auto& def : parse_attr_json(t, "gen_ai.tool.definitions")) {
                if (def.contains("function")) {
                    tools.push_back(def);
                } else {
                    json fn = def;
                    fn.erase("type");
                    tools.push_back({{"type", "function"}, {"function", fn}});
                }
            }
        });
        body["tools"] = tools;
    }
    return body;
}

std::optional<Timestamp>
nanos(const Attr& a)
{
    if (!a.number) {
        return std::nullopt;
    }
    Timestamp t;
    t.micros = *a.number / 1000;
    return t;
}

// A span's own members: its attributes, times and ids.
struct SpanFields {
    Attrs attrs;
    std::optional<Timestamp> start;
    std::optional<Timestamp> end;
    std::string trace;
    std::string span_id;
};

SpanFields
span_fields(od::object span)
{
    SpanFields out;
    for (auto field : span) {
        const auto key = key_of(field);
        od::value v = value_of(field);
        if (key == "attributes") {
            within("attributes", [&] { attributes(v, out.attrs); });
        } else if (key == "startTimeUnixNano" || key == "start_time_unix_nano") {
            out.start = nanos(scalar(v));
        } else if (key == "endTimeUnixNano" || key == "end_time_unix_nano") {
            out.end = nanos(scalar(v));
        } else if (key == "traceId" || key == "trace_id") {
            out.trace = scalar(v).text;
        } else if (key == "spanId" || key == "span_id") {
            out.span_id = scalar(v).text;
        }
    }
    return out;
}

// The GenAI semantic conventions' usage attributes (old and new names).
model::Usage
span_usage(const Attrs& attrs, std::optional<std::int64_t> input)
{
    model::Usage u;
    u.schema = model::UsageSchema::inclusive;
    u.dialect = "otel";
    u.origin = model::Usage::Origin::span;
    u.prompt_tokens = input;
    u.output_tokens =
        count(attrs, {"gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens"});
    u.cached_tokens =
        count(attrs, {"gen_ai.usage.cache_read.input_tokens",
                      "gen_ai.usage.cache_read_input_tokens", "gen_ai.usage.input_tokens.cached"});
    u.cache_write_tokens = count(attrs, {"gen_ai.usage.cache_creation.input_tokens",
                                         "gen_ai.usage.cache_creation_input_tokens",
                                         "gen_ai.usage.input_tokens.cache_write"});
    return u;
}

// Calls f(element, index) for each element of the array that each member of
// `object` named in `keys` holds (an old export's name may be listed beside
// the current one). `array` and `element` name them in errors.
template <typename F>
void
each_listed(od::object object, std::initializer_list<std::string_view> keys, std::string_view array,
            std::string_view element, F&& f)
{
    for (auto field : object) {
        if (std::find(keys.begin(), keys.end(), key_of(field)) == keys.end()) {
            continue;
        }
        od::value list = value_of(field);
        std::size_t i = 0;
        for (auto item : get(list.get_array(), array)) {
            od::value v = get(item, element);
            f(v, i++);
        }
    }
}

} // namespace

void
OtelSpanReader::read_span(od::object span, const std::string& file, std::uint64_t line,
                          const Deliver& deliver, const Skip& skip)
{
    const SpanFields fields = span_fields(span);
    const Attrs& attrs = fields.attrs;
    const auto input = count(attrs, {"gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens"});
    const json body = body_of(attrs);
    if (!input && body.is_null()) {
        skip(); // not a GenAI call
        return;
    }
    model::Request request;
    request.file = file;
    request.line = line;
    request.id = fields.span_id.empty() ? fmt::format("{}:{}", file, line) : fields.span_id;
    request.id_given = !fields.span_id.empty();
    request.started_at = fields.start;
    request.ended_at = fields.end;
    if (const Attr* c = find(attrs, {"gen_ai.conversation.id", "session.id"})) {
        request.stream = c->text;
    } else {
        request.stream = fields.trace;
    }
    const Attr* requested = find(attrs, {"gen_ai.request.model"});
    const Attr* served = find(attrs, {"gen_ai.response.model"});
    std::string model = requested != nullptr ? requested->text
                        : served != nullptr  ? served->text
                                             : std::string();
    std::string provider;
    if (const Attr* p = find(attrs, {"gen_ai.provider.name", "gen_ai.system"})) {
        provider = provider_name(p->text);
    }
    if (input) {
        request.usage = span_usage(attrs, input);
    }
    if (body.is_null()) {
        // Usage without the prompt: known by its counts alone.
        if (model.empty()) {
            throw FieldError("attributes", "gen_ai.request.model is missing");
        }
        request.model = model;
        request.provider = provider.empty() ? "openai" : provider;
        request.prompt_logged = false;
        request.notes.emplace_back("the span records usage but not the prompt");
        deliver(std::move(request));
        return;
    }
    m_parser->begin(request);
    if (!provider.empty()) {
        m_parser->set_provider_override(provider);
    }
    const std::string text = body.dump();
    const simdjson::padded_string padded(text);
    od::document doc = get(iterate_twice_room(m_body_parser, padded), "a prompt");
    within("attributes", [&] { m_parser->members(get(doc.get_object(), "an object")); });
    m_parser->finish(model);
    if (served != nullptr && served->text != request.model) {
        request.served_model = served->text;
    }
    deliver(std::move(request));
}

void
OtelSpanReader::read_export(od::object document, const std::string& file, std::uint64_t line,
                            const Deliver& deliver, const Skip& skip, const Fail& fail)
{
    // resourceSpans[].scopeSpans[].spans[] (instrumentationLibrarySpans in old exports).
    const auto spans = [&](od::value& scope, std::size_t r, std::size_t s) {
        each_listed(get(scope.get_object(), "an object"), {"spans"}, "an array of spans", "a span",
                    [&](od::value& span, std::size_t k) {
                        try {
                            within("spans", k, [&] {
                                read_span(get(span.get_object(), "a span object"), file, line,
                                          deliver, skip);
                            });
                        } catch (FieldError& e) {
                            e.prefix(fmt::format("resourceSpans[{}].scopeSpans[{}]", r, s));
                            fail(e);
                        }
                    });
    };
    each_listed(document, {"resourceSpans"}, "an array of resource spans", "a resource span",
                [&](od::value& resource, std::size_t r) {
                    within("resourceSpans", r, [&] {
                        each_listed(get(resource.get_object(), "an object"),
                                    {"scopeSpans", "instrumentationLibrarySpans"},
                                    "an array of scope spans", "a scope span",
                                    [&](od::value& scope, std::size_t s) {
                                        within("scopeSpans", s, [&] { spans(scope, r, s); });
                                    });
                    });
                });
}

} // namespace cachewise::ingest
