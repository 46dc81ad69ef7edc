#include "ingest/anthropic_response.hpp"

#include "ingest/field_error.hpp"
#include "ingest/json_render.hpp"
#include "ingest/ondemand.hpp"

#include <fmt/format.h>

namespace cachewise::ingest {

namespace {

std::optional<std::int64_t>
count(od::value v)
{
    const auto t = get(v.type(), "a token count");
    if (t == od::json_type::null) {
        return std::nullopt;
    }
    if (t != od::json_type::number) {
        throw FieldError("",
                         fmt::format("expected a token count (an integer), found {}", describe(t)));
    }
    std::int64_t n = 0;
    if (v.get_int64().get(n) != simdjson::SUCCESS) {
        throw FieldError("", "expected a token count (an integer)");
    }
    return n;
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
        into = into.value_or(0) + *v;
    }
}

} // namespace

void
merge_usage(model::Usage& into, const model::Usage& update)
{
    const auto take = [](auto& dst, const auto& src) {
        if (src) {
            dst = src;
        }
    };
    take(into.input_tokens, update.input_tokens);
    take(into.cache_read, update.cache_read);
    take(into.cache_write, update.cache_write);
    take(into.cache_write_5m, update.cache_write_5m);
    take(into.cache_write_1h, update.cache_write_1h);
    take(into.output_tokens, update.output_tokens);
    into.summed_from_iterations = into.summed_from_iterations || update.summed_from_iterations;
}

model::Usage
AnthropicResponseParser::parse_usage(od::value value)
{
    const auto t = get(value.type(), "a usage object");
    if (t != od::json_type::object) {
        throw FieldError("", fmt::format("expected a usage object, found {}", describe(t)));
    }
    model::Usage u;
    model::Usage sum;
    std::size_t iterations = 0;
    for (auto field : get(value.get_object(), "an object")) {
        const auto key = key_of(field);
        od::value v = get(field.value(), "a value");
        if (key == "input_tokens") {
            u.input_tokens = within("input_tokens", [&] { return count(v); });
        } else if (key == "output_tokens") {
            u.output_tokens = within("output_tokens", [&] { return count(v); });
        } else if (key == "cache_read_input_tokens") {
            u.cache_read = within("cache_read_input_tokens", [&] { return count(v); });
        } else if (key == "cache_creation_input_tokens") {
            u.cache_write = within("cache_creation_input_tokens", [&] { return count(v); });
        } else if (key == "cache_creation") {
            within("cache_creation", [&] {
                if (get(v.type(), "an object") != od::json_type::object) {
                    return;
                }
                for (auto f : get(v.get_object(), "an object")) {
                    od::value n = get(f.value(), "a value");
                    const auto k = key_of(f);
                    if (k == "ephemeral_5m_input_tokens") {
                        u.cache_write_5m =
                            within("ephemeral_5m_input_tokens", [&] { return count(n); });
                    } else if (k == "ephemeral_1h_input_tokens") {
                        u.cache_write_1h =
                            within("ephemeral_1h_input_tokens", [&] { return count(n); });
                    }
                }
            });
        } else if (key == "iterations") {
            // Compaction responses report each internal iteration; the top level
            // may hold only the last one.
            within("iterations", [&] {
                if (get(v.type(), "an array") != od::json_type::array) {
                    return;
                }
                std::size_t i = 0;
                for (auto element : get(v.get_array(), "an array")) {
                    od::value it = get(std::move(element), "an iteration");
                    const model::Usage part = within("", i++, [&] { return parse_usage(it); });
                    add(sum.input_tokens, part.input_tokens);
                    add(sum.output_tokens, part.output_tokens);
                    add(sum.cache_read, part.cache_read);
                    add(sum.cache_write, part.cache_write);
                    add(sum.cache_write_5m, part.cache_write_5m);
                    add(sum.cache_write_1h, part.cache_write_1h);
                    ++iterations;
                }
            });
        }
    }
    if (iterations > 1 && sum.total_input().value_or(0) > u.total_input().value_or(0)) {
        sum.summed_from_iterations = true;
        return sum;
    }
    return u;
}

void
AnthropicResponseParser::message_object(od::object object, ResponseInfo& info)
{
    for (auto field : object) {
        const auto key = key_of(field);
        od::value v = get(field.value(), "a value");
        if (key == "usage") {
            auto usage = within("usage", [&] { return parse_usage(v); });
            if (info.usage) {
                merge_usage(*info.usage, usage);
            } else {
                info.usage = usage;
            }
        } else if (key == "id") {
            info.message_id = string_or_empty(v);
        } else if (key == "model") {
            info.model = string_or_empty(v);
        } else if (key == "error") {
            if (get(v.type(), "a value") == od::json_type::object) {
                std::string type;
                std::string message;
                for (auto f : get(v.get_object(), "an object")) {
                    od::value e = get(f.value(), "a value");
                    const auto k = key_of(f);
                    if (k == "type") {
                        type = string_or_empty(e);
                    } else if (k == "message") {
                        message = string_or_empty(e);
                    }
                }
                info.error = message.empty() ? type : fmt::format("{}: {}", type, message);
            } else {
                info.error = "error";
            }
        }
    }
}

void
AnthropicResponseParser::event_object(od::object object, ResponseInfo& info)
{
    // {"type":"message_start","message":{...usage...}} | {"type":"message_delta","usage":{...}}
    // | {"type":"error","error":{...}}; the type member may come in any position.
    std::string type;
    std::optional<model::Usage> usage;
    ResponseInfo message;
    std::string error;
    for (auto field : object) {
        const auto key = key_of(field);
        od::value v = get(field.value(), "a value");
        if (key == "type") {
            type = string_or_empty(v);
        } else if (key == "message") {
            if (get(v.type(), "an object") == od::json_type::object) {
                within("message",
                       [&] { message_object(get(v.get_object(), "an object"), message); });
            }
        } else if (key == "usage") {
            usage = within("usage", [&] { return parse_usage(v); });
        } else if (key == "error") {
            std::string wrapped;
            if (get(v.type(), "a value") == od::json_type::object) {
                for (auto f : get(v.get_object(), "an object")) {
                    od::value x = get(f.value(), "a value");
                    const auto k = key_of(f);
                    if (k == "message" || k == "type") {
                        wrapped += (wrapped.empty() ? "" : ": ") + string_or_empty(x);
                    }
                }
            }
            error = wrapped.empty() ? "error" : wrapped;
        }
    }
    if (type == "message_start" || (type.empty() && message.usage)) {
        info.message_id = message.message_id;
        info.model = message.model;
        if (message.usage) {
            info.usage = message.usage;
        }
    } else if (type == "message_delta" && usage) {
        if (info.usage) {
            merge_usage(*info.usage, *usage);
        } else {
            info.usage = usage;
        }
    } else if (type == "error") {
        info.error = error;
    }
}

void
AnthropicResponseParser::sse_data(std::string_view json, ResponseInfo& info)
{
    if (json.empty() || json == "[DONE]") {
        return;
    }
    simdjson::padded_string padded(json);
    od::document doc;
    if (const auto error = m_parser.iterate(padded).get(doc); error) {
        throw FieldError("data", fmt::format("not valid JSON: {}", simdjson::error_message(error)));
    }
    od::object object;
    if (doc.get_object().get(object) != simdjson::SUCCESS) {
        throw FieldError("data", "expected a JSON object");
    }
    event_object(object, info);
}

void
AnthropicResponseParser::sse_line(std::string_view line, ResponseInfo& info)
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
AnthropicResponseParser::parse_value(od::value value)
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
            od::value event = get(std::move(element), "an event");
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
