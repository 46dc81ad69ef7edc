#include "ingest/openai_responses_request.hpp"

#include "ingest/block_kinds.hpp"
#include "ingest/field_error.hpp"
#include "ingest/ondemand.hpp"
#include "ingest/openai_chat_request.hpp"

#include <fmt/format.h>

namespace cachewise::ingest {

OpenAIResponsesParser::OpenAIResponsesParser(const ruleset::Rules& rules,
                                             const model::TokenEstimator& estimator)
    : BodyParser(rules, estimator, model::ApiFormat::openai_responses, "input")
{}

void
OpenAIResponsesParser::reset_body()
{
    m_item_count = 0;
    m_previous_response.clear();
    m_text_format = {};
    m_reasoning = {};
}

bool
OpenAIResponsesParser::body_member(std::string_view key, od::value value)
{
    model::Request& r = request();
    if (key == "model") {
        read_model("model", value);
    } else if (key == "instructions") {
        within("instructions", [&] {
            if (type_of(value) == od::json_type::null) {
                return;
            }
            const Rendered& rendered = render_text(value);
            SegmentPath path{Level::system, -1, 0, true, PathRoot::instructions, PathPart::none};
            segments(Level::system)
                .push_back(make_segment(rendered, path, Role::system, false, SegmentKind::text));
        });
    } else if (key == "tools") {
        within("tools", [&] { append_tools(value, PathRoot::tools); });
    } else if (key == "tool_choice") {
        m_tool_choice = read_param("tool_choice", value);
    } else if (key == "text") {
        m_text_format = read_param("text", value);
    } else if (key == "reasoning") {
        m_reasoning = read_param("reasoning", value);
    } else if (key == "previous_response_id") {
        if (type_of(value) == od::json_type::string) {
            m_previous_response = std::string(get_string(value));
        }
    } else if (openai_cache_member(key, value, r)) {
        return true;
    } else {
        return key == "temperature" || key == "top_p" || key == "max_output_tokens" ||
               key == "stream" || key == "stream_options" || key == "store" || key == "metadata" ||
               key == "include" || key == "truncation" || key == "parallel_tool_calls" ||
               key == "background" || key == "service_tier" || key == "max_tool_calls" ||
               key == "top_logprobs" || key == "conversation";
    }
    return true;
}

void
OpenAIResponsesParser::item(od::value value, int index, bool& system_run,
                            std::vector<Segment>* into)
{
    const auto target = [&](Level level) -> std::vector<Segment>& {
        return into != nullptr ? *into : segments(level);
    };
    if (type_of(value) != od::json_type::object) {
        wrong_type("an input item object", type_of(value));
    }
    // A message ({"role", "content"}) gives one segment per content part;
    // any other item is one segment. Decide after one look at the keys.
    od::object object = get(value.get_object(), "an object");
    std::optional<Role> role;
    bool system_like = false;
    bool message = false;
    for (auto field : object) {
        const auto key = key_of(field);
        if (key == "role") {
            od::value v = get(field.value(), "a value");
            const auto name = within("role", [&] { return get_string(v); });
            system_like = name == "system" || name == "developer";
            role = name == "assistant" ? Role::assistant : system_like ? Role::system : Role::user;
            message = true;
        }
    }
    (void)get(object.reset(), "an object");
    if (!message) {
        const Rendered& rendered = render(object, {"id", "status"});
        if (rendered.stats.type.empty()) {
            throw FieldError("type", "missing (expected \"function_call\", "
                                     "\"function_call_output\", \"reasoning\", ...)");
        }
        SegmentPath path{Level::messages, index, 0, true, PathRoot::input, PathPart::none};
        const SegmentKind kind =
            kind_named(BlockVocabulary::openai_responses_item, rendered.stats.type);
        target(Level::messages)
            .push_back(make_segment(rendered, path,
                                    kind == SegmentKind::tool_result ? Role::user : Role::assistant,
                                    true, kind));
        system_run = false;
        return;
    }
    if (!system_like) {
        system_run = false;
    }
    const Level level = system_like && system_run ? Level::system : Level::messages;
    auto& out = target(level);
    const std::size_t first = out.size();
    for (auto field : object) {
        if (key_of(field) != "content") {
            continue;
        }
        od::value v = get(field.value(), "a value");
        within("content", [&] {
            if (type_of(v) == od::json_type::string) {
                const Rendered& rendered = render_text(v);
                out.push_back(make_segment(rendered,
                                           SegmentPath{level, index, 0, true, PathRoot::input},
                                           *role, true, SegmentKind::text));
                return;
            }
            for_each_element(
                v, "a string or an array of content parts", "a content part",
                [&](od::value& part, int i) {
                    const Rendered& rendered = render(part);
                    m_images = m_images || rendered.stats.images > 0;
                    out.push_back(make_segment(
                        rendered, SegmentPath{level, index, i, false, PathRoot::input}, *role,
                        i == 0,
                        kind_named(BlockVocabulary::openai_responses_part, rendered.stats.type)));
                });
        });
    }
    if (out.size() == first) {
        throw FieldError("content", "missing");
    }
}

void
OpenAIResponsesParser::conversation(od::value value)
{
    const auto t = type_of(value);
    if (t == od::json_type::string) {
        const Rendered& rendered = render_text(value);
        SegmentPath path{Level::messages, -1, 0, true, PathRoot::input, PathPart::none};
        segments(Level::messages)
            .push_back(make_segment(rendered, path, Role::user, true, SegmentKind::text));
        m_item_count = 1; // sent back as the first item
        return;
    }
    bool system_run = true;
    for_each_element(value, "a string or an array of input items", "an input item",
                     [&](od::value& it, int m) {
                         item(it, m, system_run, nullptr);
                         m_item_count = m + 1;
                     });
}

void
OpenAIResponsesParser::read_continuation(od::value output, std::vector<Segment>& out)
{
    // The output items are the next request's input items, sent back as they
    // came (their ids and statuses are not rendered).
    within("response.output", [&] {
        bool system_run = false;
        int m = m_item_count;
        for_each_element(output, "an array of output items", "an output item",
                         [&](od::value& it, int) { item(it, m++, system_run, &out); });
    });
}

Hash128
stored_response_key(std::string_view id)
{
    return hash_bytes("previous_response_id:" + std::string(id));
}

void
OpenAIResponsesParser::finish_body()
{
    model::Request& r = request();
    r.provider = provider_of_model(r.model);
    if (!m_previous_response.empty()) {
        // The stored conversation comes first and is not in the log.
        Segment hidden;
        hidden.kind = SegmentKind::unlogged;
        hidden.path = SegmentPath{Level::messages, -1, 0, true, PathRoot::input, PathPart::none};
        hidden.content = stored_response_key(m_previous_response);
        hidden.cache_control_allowed = false;
        put_first(Level::messages, hidden);
        r.notes.push_back(fmt::format("continues stored response {}: its conversation is not in "
                                      "the log (tokens inferred from usage)",
                                      m_previous_response));
    }
    add_param("tool_choice", m_tool_choice);
    add_param("response_format", m_text_format);
    add_param("reasoning_effort", m_reasoning);
    add_param("images", m_images ? "yes" : "no", true);
}

} // namespace cachewise::ingest
