#include "ingest/anthropic_request.hpp"

#include "ingest/field_error.hpp"
#include "ingest/ondemand.hpp"
#include "model/chain.hpp"

#include <fmt/format.h>

namespace cachewise::ingest {

using model::Role;
using model::Segment;
using model::SegmentKind;
using model::SegmentPath;

namespace {

std::string_view
get_string(od::value& v)
{
    const auto t = type_of(v);
    if (t != od::json_type::string) {
        wrong_type("a string", t);
    }
    return get(v.get_string(), "a string");
}

SegmentKind
kind_of_block(std::string_view type)
{
    if (type == "text") {
        return SegmentKind::text;
    }
    if (type == "tool_use") {
        return SegmentKind::tool_use;
    }
    if (type == "tool_result") {
        return SegmentKind::tool_result;
    }
    if (type == "image") {
        return SegmentKind::image;
    }
    if (type == "document") {
        return SegmentKind::document;
    }
    if (type == "thinking") {
        return SegmentKind::thinking;
    }
    if (type == "redacted_thinking") {
        return SegmentKind::redacted_thinking;
    }
    if (type == "server_tool_use" || type == "mcp_tool_use") {
        return SegmentKind::server_tool_use;
    }
    if (type == "search_result") {
        return SegmentKind::search_result;
    }
    if (type.size() > 12 && type.substr(type.size() - 12) == "_tool_result") {
        return SegmentKind::server_tool_result; // web_search_tool_result, mcp_tool_result, ...
    }
    return SegmentKind::other;
}

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
    : m_rules(&rules), m_estimator(&estimator), m_renderer(estimator)
{}

void
AnthropicRequestParser::begin(model::Request& request)
{
    m_request = &request;
    m_tools.clear();
    m_system.clear();
    m_messages.clear();
    m_has_model = m_has_messages = false;
    m_images = m_web_search = m_citations = false;
    m_has_tool_choice = m_has_thinking = m_has_speed = m_has_effort = false;
    m_tool_choice.clear();
    m_thinking.clear();
    m_speed.clear();
    m_effort.clear();
}

const AnthropicRequestParser::Rendered&
AnthropicRequestParser::render(od::value block)
{
    if (type_of(block) != od::json_type::object) {
        wrong_type("an object", type_of(block));
    }
    od::object object = get(block.get_object(), "an object");
    const Hash128 key = hash_bytes(get(object.raw_json(), "an object"));
    if (const auto it = m_memo.find(key); it != m_memo.end()) {
        return it->second;
    }
    if (m_memo.size() >= k_memo_entries) {
        m_memo.clear(); // bounded memory; agent logs refill it at once
    }
    (void)get(object.reset(), "an object");
    Rendered r;
    const std::string_view rendered = m_renderer.render_object(object, r.stats);
    r.content = hash_bytes(rendered);
    r.bytes = static_cast<std::uint32_t>(rendered.size());
    if (m_store != nullptr) {
        m_store->put(r.content, rendered);
    }
    return m_memo.emplace(key, std::move(r)).first->second;
}

const AnthropicRequestParser::Rendered&
AnthropicRequestParser::remember(std::string_view rendered, const RenderStats& stats)
{
    m_scratch.stats = stats;
    m_scratch.content = hash_bytes(rendered);
    m_scratch.bytes = static_cast<std::uint32_t>(rendered.size());
    if (m_store != nullptr) {
        m_store->put(m_scratch.content, rendered);
    }
    return m_scratch;
}

Segment
AnthropicRequestParser::make_segment(const Rendered& rendered, SegmentPath path, Role role,
                                     bool message_start)
{
    const RenderStats& stats = rendered.stats;
    Segment s;
    s.path = path;
    s.role = role;
    s.message_start = message_start;
    s.content = rendered.content;
    s.bytes = rendered.bytes;
    double estimate = stats.text_tokens + static_cast<double>(stats.images) * m_estimator->image() +
                      m_estimator->document(stats.document_base64_bytes) +
                      m_estimator->block_overhead();
    if (message_start) {
        estimate += m_estimator->message_overhead();
    }
    if (path.level == model::Level::tools) {
        s.kind = SegmentKind::tool;
        estimate += m_estimator->tool_overhead();
    } else {
        s.kind = kind_of_block(stats.type);
    }
    s.estimate = static_cast<float>(estimate);
    // "Thinking blocks cannot be cached directly with cache_control" and
    // "Empty text blocks cannot be cached" (rule: where cache_control may go).
    s.cache_control_allowed = s.kind != SegmentKind::thinking &&
                              s.kind != SegmentKind::redacted_thinking &&
                              !(s.kind == SegmentKind::text && stats.text_empty);
    s.cache_control = stats.cache_control ? stats.cache_control : stats.nested_cache_control;
    return s;
}

bool
AnthropicRequestParser::member(std::string_view key, od::value value)
{
    model::Request& r = *m_request;
    if (key == "model") {
        r.model = std::string(within("model", [&] { return get_string(value); }));
        m_has_model = true;
    } else if (key == "messages") {
        within("messages", [&] { messages(value); });
        m_has_messages = true;
    } else if (key == "system") {
        within("system", [&] { system(value); });
    } else if (key == "tools") {
        within("tools", [&] { tools(value); });
    } else if (key == "tool_choice") {
        m_tool_choice = within("tool_choice", [&] { return m_renderer.render_param(value); });
        m_has_tool_choice = m_tool_choice != "null";
    } else if (key == "thinking") {
        m_thinking = within("thinking", [&] { return m_renderer.render_param(value); });
        m_has_thinking = m_thinking != "null";
    } else if (key == "speed") {
        m_speed = std::string(within("speed", [&] { return get_string(value); }));
        m_has_speed = true;
    } else if (key == "output_config") {
        within("output_config", [&] {
            if (type_of(value) != od::json_type::object) {
                wrong_type("an object", type_of(value));
            }
            for (auto field : get(value.get_object(), "an object")) {
                if (key_of(field) == "effort") {
                    od::value v = get(field.value(), "a value");
                    m_effort = std::string(within("effort", [&] { return get_string(v); }));
                    m_has_effort = true;
                }
            }
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
AnthropicRequestParser::tools(od::value value)
{
    const auto t = type_of(value);
    if (t == od::json_type::null) {
        return;
    }
    if (t != od::json_type::array) {
        wrong_type("an array of tool definitions", t);
    }
    int i = 0;
    for (auto element : get(value.get_array(), "an array")) {
        od::value tool = get(std::move(element), "a tool definition");
        within("", static_cast<std::size_t>(i), [&] {
            if (type_of(tool) != od::json_type::object) {
                wrong_type("a tool definition object", type_of(tool));
            }
            const Rendered& rendered = render(tool);
            if (rendered.stats.type.rfind("web_search", 0) == 0) {
                m_web_search = true;
            }
            m_tools.push_back(
                make_segment(rendered, SegmentPath{model::Level::tools, -1, i}, Role::none, false));
        });
        ++i;
    }
}

void
AnthropicRequestParser::system(od::value value)
{
    const auto t = type_of(value);
    if (t == od::json_type::null) {
        return;
    }
    if (t == od::json_type::string) {
        // "A string system is one text block."
        RenderStats stats;
        const std::string_view text = get(value.get_string(), "a string");
        const Rendered& rendered = remember(m_renderer.render_text_string(text, stats), stats);
        SegmentPath path{model::Level::system, -1, 0, true};
        m_system.push_back(make_segment(rendered, path, Role::none, false));
        return;
    }
    if (t != od::json_type::array) {
        wrong_type("a string or an array of text blocks", t);
    }
    int i = 0;
    for (auto element : get(value.get_array(), "an array")) {
        od::value block = get(std::move(element), "a block");
        within("", static_cast<std::size_t>(i), [&] {
            if (type_of(block) != od::json_type::object) {
                wrong_type("a text block object", type_of(block));
            }
            const Rendered& rendered = render(block);
            if (rendered.stats.type.empty()) {
                throw FieldError("type", "missing (expected \"text\")");
            }
            m_system.push_back(make_segment(rendered, SegmentPath{model::Level::system, -1, i},
                                            Role::none, false));
        });
        ++i;
    }
}

void
AnthropicRequestParser::message_content(od::value content, Role role, int message,
                                        std::vector<Segment>& out, bool& images_seen)
{
    const auto t = type_of(content);
    if (t == od::json_type::string) {
        RenderStats stats;
        const std::string_view text = get(content.get_string(), "a string");
        const Rendered& rendered = remember(m_renderer.render_text_string(text, stats), stats);
        SegmentPath path{model::Level::messages, message, 0, true};
        out.push_back(make_segment(rendered, path, role, true));
        return;
    }
    if (t != od::json_type::array) {
        wrong_type("a string or an array of content blocks", t);
    }
    int i = 0;
    for (auto element : get(content.get_array(), "an array")) {
        od::value block = get(std::move(element), "a content block");
        within("", static_cast<std::size_t>(i), [&] {
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
                                       role, i == 0));
        });
        ++i;
    }
}

void
AnthropicRequestParser::messages(od::value value)
{
    const auto t = type_of(value);
    if (t != od::json_type::array) {
        wrong_type("an array of messages", t);
    }
    int m = 0;
    for (auto element : get(value.get_array(), "an array")) {
        od::value message = get(std::move(element), "a message");
        within("", static_cast<std::size_t>(m), [&] {
            if (type_of(message) != od::json_type::object) {
                wrong_type("a message object", type_of(message));
            }
            std::optional<Role> role;
            bool has_content = false;
            // Content may precede role in key order; blocks take the role after.
            const std::size_t first = m_messages.size();
            for (auto field : get(message.get_object(), "an object")) {
                const auto key = key_of(field);
                od::value v = get(field.value(), "a value");
                if (key == "role") {
                    role = within("role", [&] { return parse_role(get_string(v)); });
                } else if (key == "content") {
                    within("content", [&] {
                        message_content(v, role.value_or(Role::none), m, m_messages, m_images);
                    });
                    has_content = true;
                }
            }
            if (!role) {
                throw FieldError("role", "missing (expected \"user\" or \"assistant\")");
            }
            if (!has_content) {
                throw FieldError("content", "missing");
            }
            for (std::size_t k = first; k < m_messages.size(); ++k) {
                m_messages[k].role = *role;
            }
        });
        ++m;
    }
}

void
AnthropicRequestParser::finish()
{
    model::Request& r = *m_request;
    if (!m_model_override.empty()) {
        r.model = m_model_override;
    } else if (!m_has_model) {
        throw FieldError("model", "missing");
    }
    if (!m_has_messages) {
        throw FieldError("messages", "missing");
    }
    // Render order: tools, then system, then messages (rule "Cache prefixes are
    // created in the following order: tools, system, then messages").
    r.segments.clear();
    r.segments.reserve(m_tools.size() + m_system.size() + m_messages.size());
    for (const auto level : m_rules->anthropic.render_order) {
        auto& part = level == model::Level::tools    ? m_tools
                     : level == model::Level::system ? m_system
                                                     : m_messages;
        r.segments.insert(r.segments.end(), part.begin(), part.end());
    }

    const auto add = [&](std::string name, std::string value, bool present) {
        r.params.push_back(
            model::Param{std::move(name), std::move(value), present, model::Level::messages});
    };
    r.params.clear();
    add("model", r.model, true);
    add("web_search", m_web_search ? "on" : "off", true);
    add("citations", m_citations ? "on" : "off", true);
    add("speed", m_speed, m_has_speed);
    add("tool_choice", m_tool_choice, m_has_tool_choice);
    add("images", m_images ? "yes" : "no", true);
    add("thinking", m_thinking, m_has_thinking);
    add("effort", m_effort, m_has_effort);
    // Tokens the API adds to the prompt for tools and for extended thinking
    // are in the reported usage but in no segment: count them on the first.
    if (!r.segments.empty()) {
        const auto& t = m_rules->tokens;
        double added = 0;
        if (!m_tools.empty()) {
            added += t.tool_use_system_prompt.value;
        }
        if (m_has_thinking && m_thinking.find("\"enabled\"") != std::string::npos) {
            added += t.thinking_system_prompt.value;
        }
        r.segments.front().estimate += static_cast<float>(added);
    }
    finalize(r, *m_rules);
}

void
AnthropicRequestParser::finalize(model::Request& request, const ruleset::Rules& rules)
{
    // Each parameter invalidates from the level the provider's table gives;
    // parameters the table does not name do not enter the chain.
    std::vector<model::Param> kept;
    for (auto& p : request.params) {
        if (const auto* rule = rules.anthropic.invalidation_for(p.name)) {
            p.level = rule->level;
            kept.push_back(std::move(p));
        }
    }
    request.params = std::move(kept);

    const double multiplier = rules.tokens.multiplier_for(request.model);
    if (multiplier != 1.0) {
        for (auto& s : request.segments) {
            s.estimate = static_cast<float>(s.estimate * multiplier);
        }
    }
    model::assign_lookback_positions(request,
                                     rules.anthropic.tool_runs_count_as_one_position.value);
    model::assign_tokens(request);
    model::compute_chain(request);
}

} // namespace cachewise::ingest
