#include "ingest/openai_chat_request.hpp"

#include "ingest/block_kinds.hpp"
#include "ingest/field_error.hpp"
#include "ingest/ondemand.hpp"
#include "model/chain.hpp"

#include <fmt/format.h>

namespace cachewise::ingest {

namespace {

Role
parse_role(std::string_view role, bool& system_like)
{
    system_like = role == "system" || role == "developer";
    if (role == "user") {
        return Role::user;
    }
    if (role == "assistant") {
        return Role::assistant;
    }
    if (role == "tool" || role == "function") {
        return Role::user; // tool results are turns of the caller
    }
    if (system_like) {
        return Role::system;
    }
    throw FieldError("", fmt::format("expected \"system\", \"developer\", \"user\", \"assistant\" "
                                     "or \"tool\", found \"{}\"",
                                     role));
}

SegmentKind
kind_of_part(std::string_view type, bool tool_message)
{
    if (tool_message) {
        return SegmentKind::tool_result;
    }
    return kind_named(BlockVocabulary::openai_chat_part, type);
}

} // namespace

bool
openai_cache_member(std::string_view key, od::value value, model::Request& r)
{
    const auto text = [&](std::string_view name) {
        return within(name, [&] {
            return type_of(value) == od::json_type::string ? std::string(get_string(value))
                                                           : std::string();
        });
    };
    if (key == "prompt_cache_key") {
        r.cache_key = text(key);
    } else if (key == "prompt_cache_retention") {
        r.retention = text(key);
    } else if (key == "user" || key == "safety_identifier") {
        if (r.stream.empty()) {
            r.stream = text(key);
        }
    } else if (key == "prompt_cache_options") {
        within("prompt_cache_options", [&] {
            for_each_member(value, "an object", [&](std::string_view k, od::value& v) {
                if (k == "mode") {
                    r.explicit_mode = within("mode", [&] { return get_string(v); }) == "explicit";
                } else if (k == "ttl") {
                    r.retention = std::string(within("ttl", [&] { return get_string(v); }));
                }
            });
        });
    } else {
        return false;
    }
    return true;
}

OpenAIChatParser::OpenAIChatParser(const ruleset::Rules& rules,
                                   const model::TokenEstimator& estimator)
    : BodyParser(rules, estimator, model::ApiFormat::openai_chat, "messages")
{}

void
OpenAIChatParser::reset_body()
{
    m_response_format = {};
    m_reasoning_effort = {};
    m_message_count = 0;
}

bool
OpenAIChatParser::body_member(std::string_view key, od::value value)
{
    model::Request& r = request();
    if (key == "model") {
        read_model("model", value);
    } else if (key == "tools" || key == "functions") {
        const std::string name(key);
        within(name, [&] { append_tools(value, PathRoot::tools); });
    } else if (key == "tool_choice" || key == "function_call") {
        m_tool_choice = read_param("tool_choice", value);
    } else if (key == "response_format") {
        m_response_format = read_param("response_format", value);
    } else if (key == "reasoning_effort") {
        m_reasoning_effort = read_param("reasoning_effort", value);
    } else if (openai_cache_member(key, value, r)) {
        return true;
    } else {
        // Sampling and transport settings do not reach the cache.
        return key == "temperature" || key == "top_p" || key == "max_tokens" ||
               key == "max_completion_tokens" || key == "stream" || key == "stream_options" ||
               key == "n" || key == "stop" || key == "seed" || key == "presence_penalty" ||
               key == "frequency_penalty" || key == "logprobs" || key == "top_logprobs" ||
               key == "logit_bias" || key == "parallel_tool_calls" || key == "store" ||
               key == "metadata" || key == "modalities" || key == "audio" || key == "prediction" ||
               key == "service_tier" || key == "web_search_options" || key == "verbosity" ||
               key == "thinking";
    }
    return true;
}

// A message's content: a string (one text block), null, or content parts.
void
OpenAIChatParser::content_segments(od::value v, int index, std::vector<Segment>& out)
{
    const auto t = type_of(v);
    if (t == od::json_type::null) {
        return;
    }
    if (t == od::json_type::string) {
        const Rendered& rendered = render_text(v);
        out.push_back(make_segment(rendered,
                                   SegmentPath{Level::messages, index, 0, true, PathRoot::messages},
                                   Role::none, false, SegmentKind::text));
        return;
    }
    for_each_element(v, "a string, null or an array of content parts", "a content part",
                     [&](od::value& part, int i) {
                         if (type_of(part) != od::json_type::object) {
                             wrong_type("a content part object", type_of(part));
                         }
                         const Rendered& rendered = render(part);
                         if (rendered.stats.images > 0) {
                             m_images = true;
                         }
                         out.push_back(make_segment(
                             rendered,
                             SegmentPath{Level::messages, index, i, false, PathRoot::messages},
                             Role::none, false, SegmentKind::text));
                         out.back().kind = kind_of_part(rendered.stats.type, false);
                     });
}

// An assistant message's tool_calls, one segment each.
void
OpenAIChatParser::tool_call_segments(od::value v, int index, std::vector<Segment>& out)
{
    if (type_of(v) == od::json_type::null) {
        return;
    }
    for_each_element(v, "an array of tool calls", "a tool call", [&](od::value& call, int i) {
        // "index" numbers streamed deltas; it is not sent back.
        const Rendered& rendered = render(call, {"index"});
        out.push_back(make_segment(
            rendered,
            SegmentPath{Level::messages, index, i, false, PathRoot::messages, PathPart::tool_calls},
            Role::none, false, SegmentKind::tool_use));
    });
}

// The message's first block carries its overhead and its header (name,
// tool_call_id); a message-level cache_control marks its last block.
void
OpenAIChatParser::seal_message(std::vector<Segment>& out, std::size_t first,
                               const std::string& header,
                               const std::optional<model::CacheControl>& marker)
{
    out[first].message_start = true;
    out[first].estimate += static_cast<float>(m_estimator->message_overhead());
    if (!header.empty()) {
        // The header is part of the message as rendered: fold it into the
        // first block's identity.
        HashBuilder b;
        b.add(header).add(out[first].content);
        const Hash128 body = out[first].content;
        out[first].content = b.digest();
        alias_text(body, out[first].content);
        out[first].estimate += static_cast<float>(m_estimator->text(header));
    }
    if (marker) {
        out.back().cache_control = marker; // LiteLLM: marks the whole message
    }
}

void
OpenAIChatParser::message(od::value value, int index, bool& system_run, std::vector<Segment>& out)
{
    if (type_of(value) != od::json_type::object) {
        wrong_type("a message object", type_of(value));
    }
    std::optional<Role> role;
    bool system_like = false;
    bool tool_message = false;
    bool has_content = false;
    std::string header; // name, tool_call_id: rendered with the message
    std::optional<model::CacheControl> message_marker;
    const std::size_t first = out.size();
    // Members may come in any order; blocks take the role afterwards.
    for (auto field : get(value.get_object(), "an object")) {
        const auto key = key_of(field);
        od::value v = get(field.value(), "a value");
        if (key == "role") {
            const auto name = within("role", [&] { return get_string(v); });
            role = within("role", [&] { return parse_role(name, system_like); });
            tool_message = name == "tool" || name == "function";
        } else if (key == "content") {
            has_content = true;
            within("content", [&] { content_segments(v, index, out); });
        } else if (key == "tool_calls") {
            within("tool_calls", [&] { tool_call_segments(v, index, out); });
        } else if (key == "name" || key == "tool_call_id") {
            if (type_of(v) == od::json_type::string) {
                header += fmt::format("{}={}\n", key, get(v.get_string(), "a string"));
            }
        } else if (key == "cache_control") {
            message_marker = within("cache_control", [&] { return parse_cache_control(v); });
        }
    }
    if (!role) {
        throw FieldError("role", "missing (expected \"system\", \"user\", \"assistant\", ...)");
    }
    if (!has_content && out.size() == first) {
        throw FieldError("content", "missing");
    }
    if (!system_like) {
        system_run = false;
    }
    const Level level = system_like && system_run ? Level::system : Level::messages;
    for (std::size_t k = first; k < out.size(); ++k) {
        Segment& s = out[k];
        s.role = *role;
        s.path.level = level;
        if (tool_message && s.kind != SegmentKind::image) {
            s.kind = SegmentKind::tool_result;
        }
    }
    if (out.size() > first) {
        seal_message(out, first, header, message_marker);
    }
}

void
OpenAIChatParser::conversation(od::value value)
{
    bool system_run = true;
    std::vector<Segment> out;
    for_each_element(value, "an array of messages", "a message",
                     [&](od::value& message_value, int m) {
                         out.clear();
                         message(message_value, m, system_run, out);
                         for (auto& s : out) {
                             segments(s.path.level).push_back(s);
                         }
                         m_message_count = m + 1;
                     });
}

void
OpenAIChatParser::finish_body()
{
    model::Request& r = request();
    r.provider = provider_of_model(r.model);
    add_param("tool_choice", m_tool_choice);
    add_param("response_format", m_response_format);
    add_param("reasoning_effort", m_reasoning_effort);
    add_param("images", m_images ? "yes" : "no", true);
}

void
OpenAIChatParser::read_continuation(od::value message_value, std::vector<Segment>& out)
{
    bool system_run = false;
    within("response.choices[0].message",
           [&] { message(message_value, m_message_count, system_run, out); });
}

} // namespace cachewise::ingest
