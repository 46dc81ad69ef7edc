#include "ingest/anthropic_request.hpp"

#include "ingest/block_kinds.hpp"
#include "ingest/field_error.hpp"
#include "ingest/ondemand.hpp"
#include "model/chain.hpp"

#include <fmt/format.h>

namespace cachewise::ingest {

namespace {

Role
parse_role(std::string_view role)
{
    if (role == "user") {
        return Role::user;
    }
    if (role == "assistant") {
        return Role::assistant;
    }
    if (role == "system") {
        return Role::system; // mid-conversation system messages (newer models)
    }
    throw FieldError("", fmt::format("expected \"user\" or \"assistant\", found \"{}\"", role));
}

} // namespace

AnthropicRequestParser::AnthropicRequestParser(const ruleset::Rules& rules,
                                               const model::TokenEstimator& estimator)
    : BodyParser(rules, estimator, model::ApiFormat::anthropic, "messages")
{}

bool
AnthropicRequestParser::body_member(std::string_view key, od::value value)
{
    model::Request& r = request();
    if (key == "model") {
        read_model("model", value);
    } else if (key == "system") {
        within("system", [&] { system(value); });
    } else if (key == "tools") {
        within("tools", [&] { append_tools(value, model::PathRoot::by_level); });
    } else if (key == "tool_choice") {
        m_tool_choice = read_param("tool_choice", value);
    } else if (key == "thinking") {
        m_thinking = read_param("thinking", value);
    } else if (key == "speed") {
        m_speed = {std::string(within("speed", [&] { return get_string(value); })), true};
    } else if (key == "output_config") {
        within("output_config", [&] {
            for_each_member(value, "an object", [&](std::string_view k, od::value& v) {
                if (k == "effort") {
                    m_effort = {std::string(within("effort", [&] { return get_string(v); })), true};
                }
            });
        });
    } else if (key == "cache_control") {
        // The top-level automatic breakpoint; same shape as a block's.
        r.auto_cache_control = within("cache_control", [&] { return parse_cache_control(value); });
    } else if (key == "metadata") {
        within("metadata", [&] {
            if (type_of(value) != od::json_type::object) {
                return;
            }
            for (auto field : get(value.get_object(), "an object")) {
                if (key_of(field) == "user_id") {
                    od::value v = get(field.value(), "a value");
                    if (type_of(v) == od::json_type::string && r.stream.empty()) {
                        r.stream = std::string(get(v.get_string(), "a string"));
                    }
                }
            }
        });
    } else {
        // max_tokens, temperature, stream, stop_sequences, ... do not reach the cache.
        return key == "max_tokens" || key == "temperature" || key == "top_p" || key == "top_k" ||
               key == "stream" || key == "stop_sequences" || key == "service_tier" ||
               key == "container" || key == "mcp_servers" || key == "context_management" ||
               key == "betas" || key == "anthropic_version";
    }
    return true;
}

void
AnthropicRequestParser::on_tool(const RenderStats& stats)
{
    if (stats.type.rfind("web_search", 0) == 0) {
        m_web_search = true; // the toggle modifies the system prompt
    }
}

void
AnthropicRequestParser::system(od::value value)
{
    // "A string system is one text block."
    if (plain_system(value, SegmentPath{model::Level::system, -1, 0, true}, Role::none)) {
        return;
    }
    for_each_element(
        value, "a string or an array of text blocks", "a block", [&](od::value& block, int i) {
            if (type_of(block) != od::json_type::object) {
                wrong_type("a text block object", type_of(block));
            }
            const Rendered& rendered = render(block);
            if (rendered.stats.type.empty()) {
                throw FieldError("type", "missing (expected \"text\")");
            }
            segments(model::Level::system)
                .push_back(make_segment(
                    rendered, SegmentPath{model::Level::system, -1, i}, Role::none, false,
                    kind_named(BlockVocabulary::anthropic_block, rendered.stats.type)));
        });
}

void
AnthropicRequestParser::message_content(od::value content, Role role, int message,
                                        std::vector<Segment>& out, bool& images_seen)
{
    const auto t = type_of(content);
    if (t == od::json_type::string) {
        const Rendered& rendered = render_text(content);
        SegmentPath path{model::Level::messages, message, 0, true};
        out.push_back(make_segment(rendered, path, role, true, SegmentKind::text));
        return;
    }
    for_each_element(
        content, "a string or an array of content blocks", "a content block",
        [&](od::value& block, int i) {
            if (type_of(block) != od::json_type::object) {
                wrong_type("a content block object", type_of(block));
            }
            const Rendered& rendered = render(block);
            const RenderStats& stats = rendered.stats;
            if (stats.type.empty()) {
                throw FieldError("type",
                                 "missing (expected \"text\", \"image\", \"tool_use\", ...)");
            }
            if (stats.images > 0) {
                images_seen = true;
            }
            if (stats.citations_enabled) {
                m_citations = true;
            }
            out.push_back(make_segment(rendered, SegmentPath{model::Level::messages, message, i},
                                       role, i == 0,
                                       kind_named(BlockVocabulary::anthropic_block, stats.type)));
        });
}

void
AnthropicRequestParser::conversation(od::value value)
{
    for_each_element(value, "an array of messages", "a message", [&](od::value& message, int m) {
        if (type_of(message) != od::json_type::object) {
            wrong_type("a message object", type_of(message));
        }
        std::optional<Role> role;
        bool has_content = false;
        // Content may precede role in key order; blocks take the role after.
        auto& out = segments(model::Level::messages);
        const std::size_t first = out.size();
        for (auto field : get(message.get_object(), "an object")) {
            const auto key = key_of(field);
            od::value v = get(field.value(), "a value");
            if (key == "role") {
                role = within("role", [&] { return parse_role(get_string(v)); });
            } else if (key == "content") {
                within("content",
                       [&] { message_content(v, role.value_or(Role::none), m, out, m_images); });
                has_content = true;
            }
        }
        close_message(out, first, role, has_content);
    });
}

void
AnthropicRequestParser::reset_body()
{
    m_web_search = m_citations = false;
    m_thinking = {};
    m_speed = {};
    m_effort = {};
}

void
AnthropicRequestParser::finish_body()
{
    model::Request& r = request();
    // Bedrock's InvokeModel takes the same body; its model ids say so
    // ("us.anthropic.claude-...", LiteLLM's "bedrock/...").
    r.provider =
        r.model.find("anthropic.") != std::string::npos || r.model.rfind("bedrock/", 0) == 0
            ? "bedrock"
            : "anthropic";
    add_param("web_search", m_web_search ? "on" : "off", true);
    add_param("citations", m_citations ? "on" : "off", true);
    add_param("speed", m_speed);
    add_param("tool_choice", m_tool_choice);
    add_param("images", m_images ? "yes" : "no", true);
    add_param("thinking", m_thinking);
    add_param("effort", m_effort);
    const auto& t = m_rules->tokens;
    if (!segments(model::Level::tools).empty()) {
        m_hidden_tokens += t.tool_use_system_prompt.value;
    }
    if (m_thinking.present && m_thinking.value.find("\"enabled\"") != std::string::npos) {
        m_hidden_tokens += t.thinking_system_prompt.value;
    }
}

} // namespace cachewise::ingest
