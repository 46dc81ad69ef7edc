#include "ingest/trajectory.hpp"

#include "ingest/field_error.hpp"
#include "ingest/ondemand.hpp"
#include "util/time.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace cachewise::ingest {

namespace {

struct Call {
    std::size_t messages = 0; // the request is messages [0, messages)
    std::string response;     // raw JSON of extra.response
    std::uint64_t line = 0;   // where its assistant message starts in the file
};

// The line of the file at each message, counted on from the last one (the
// messages come in order): a pretty-printed trajectory spreads them over
// thousands of lines, and a finding points at its own call's.
class LineCursor {
public:
    LineCursor(std::string_view text, std::uint64_t line) : m_text(text), m_line(line) {}

    std::uint64_t line_of(const char* at)
    {
        if (at < m_text.data() + m_done || at > m_text.data() + m_text.size()) {
            return m_line; // not in the record's own text: where the last one was
        }
        const auto offset = static_cast<std::size_t>(at - m_text.data());
        m_line += static_cast<std::uint64_t>(
            std::count(m_text.begin() + static_cast<std::ptrdiff_t>(m_done),
                       m_text.begin() + static_cast<std::ptrdiff_t>(offset), '\n'));
        m_done = offset;
        return m_line;
    }

private:
    std::string_view m_text;
    std::size_t m_done = 0;
    std::uint64_t m_line;
};

// extra.response of an assistant message, as raw JSON; empty when absent.
std::string
response_of(od::object message)
{
    auto extra = member_of(message, "extra");
    auto response = extra ? member_of(*extra, "response") : std::nullopt;
    if (response && type_of(*response) == od::json_type::object) {
        od::object ro = get(response->get_object(), "a response");
        return std::string(get(ro.raw_json(), "a response"));
    }
    return {};
}

// info.config.model.model_name; empty when absent.
std::string
model_of(od::value info)
{
    auto config = member_of(info, "config");
    auto model = config ? member_of(*config, "model") : std::nullopt;
    auto name = model ? member_of(*model, "model_name") : std::nullopt;
    if (name && type_of(*name) == od::json_type::string) {
        return std::string(get(name->get_string(), "a string"));
    }
    return {};
}

} // namespace

// Throws FieldError (with the message's own path) when one message, alone,
// is not a message the chat parser reads.
void
TrajectoryReader::check_readable(const std::string& message)
{
    try {
        model::Request scratch;
        m_parser->begin(scratch);
        const simdjson::padded_string padded("{\"messages\":[" + message + "]}");
        od::document doc = get(iterate_twice_room(m_body_parser, padded), "a request body");
        m_parser->members(get(doc.get_object(), "an object"));
    } catch (const FieldError& e) {
        std::string_view field = e.field();
        for (const std::string_view head : {"messages[0]", "."}) {
            if (field.substr(0, head.size()) == head) {
                field.remove_prefix(head.size());
            }
        }
        throw FieldError(std::string(field), e.reason());
    }
}

void
TrajectoryReader::read(od::object document, std::string_view text, const std::string& file,
                       std::uint64_t line, const Deliver& deliver, const Report& report)
{
    LineCursor lines(text, line);
    std::vector<std::string> raw; // each readable message's JSON
    std::vector<Call> calls;
    std::string model;
    std::string instance;
    for (auto field : document) {
        const auto key = key_of(field);
        od::value v = value_of(field);
        if (key == "messages") {
            within("messages", [&] {
                if (type_of(v) != od::json_type::array) {
                    wrong_type("an array of messages", type_of(v));
                }
                std::size_t index = 0;
                for (auto element : get(v.get_array(), "an array")) {
                    od::value m = get(element, "a message");
                    try {
                        within("", index, [&] {
                            if (type_of(m) != od::json_type::object) {
                                wrong_type("a message object", type_of(m));
                            }
                            od::object object = get(m.get_object(), "an object");
                            const std::string_view json = get(object.raw_json(), "a message");
                            const std::uint64_t at = lines.line_of(json.data());
                            (void)get(object.reset(), "an object");
                            std::string response = response_of(object);
                            check_readable(std::string(json));
                            raw.emplace_back(json);
                            if (!response.empty()) {
                                calls.push_back(Call{raw.size() - 1, std::move(response), at});
                            }
                        });
                    } catch (const FieldError& e) {
                        report(FieldError(fmt::format("messages{}", e.field()), e.reason()));
                    }
                    ++index;
                }
            });
        } else if (key == "info") {
            model = within("info", [&] { return model_of(v); });
        } else if (key == "instance_id" && type_of(v) == od::json_type::string) {
            instance = std::string(get(v.get_string(), "a string"));
        }
    }
    if (calls.empty()) {
        throw FieldError("messages", "no assistant message carries extra.response: nothing to "
                                     "audit in this trajectory");
    }
    std::string body;
    for (const auto& c : calls) {
        // {"messages": [m_0, ..., m_{k-1}]}: the request of call k.
        body.assign("{\"messages\":[");
        for (std::size_t i = 0; i < c.messages; ++i) {
            if (i > 0) {
                body.push_back(',');
            }
            body += raw[i];
        }
        body += "]}";
        try {
            deliver(call(file, c.line, body, c.messages, c.response, model, instance));
        } catch (const FieldError& e) {
            report(e);
        }
    }
}

model::Request
TrajectoryReader::call(const std::string& file, std::uint64_t line, const std::string& body,
                       std::size_t index, const std::string& response, const std::string& model,
                       const std::string& instance)
{
    model::Request request;
    request.file = file;
    request.line = line;
    request.id = fmt::format("{}#{}", file, index);
    request.stream = instance.empty() ? file : instance;
    m_parser->begin(request);
    const simdjson::padded_string padded(body);
    od::document doc = get(iterate_twice_room(m_body_parser, padded), "a request body");
    m_parser->members(get(doc.get_object(), "an object"));
    const simdjson::padded_string response_text(response);
    od::document rdoc = get(iterate_twice_room(m_response_parser, response_text), "a response");
    od::value rvalue = get(rdoc.get_value(), "a response");
    const ResponseInfo info = within(fmt::format("messages[{}].extra.response", index),
                                     [&] { return m_responses.parse_value(rvalue); });
    request.usage = info.usage;
    request.route = info.route;
    if (info.created) {
        if (auto t = from_epoch_seconds(*info.created)) {
            request.started_at = *t;
        }
    }
    m_parser->finish(model.empty() ? info.model : model);
    if (!info.model.empty() && info.model != request.model) {
        request.served_model = info.model;
    }
    return request;
}

} // namespace cachewise::ingest
