#include "ingest/gemini_request.hpp"

#include "ingest/block_kinds.hpp"
#include "ingest/field_error.hpp"
#include "ingest/ondemand.hpp"
#include "util/time.hpp"

#include <fmt/format.h>

#include <charconv>

namespace cachewise::ingest {

namespace {

SegmentKind
kind_of_part(const RenderStats& stats)
{
    const SegmentKind kind = kind_named(BlockVocabulary::gemini_part, stats.tag);
    if (kind == SegmentKind::text && stats.thought) {
        return SegmentKind::thinking;
    }
    // An inline image is an image, whatever part carries it.
    if (stats.images > 0 && (kind == SegmentKind::document || kind == SegmentKind::other)) {
        return SegmentKind::image;
    }
    return kind;
}

// A protobuf Duration as JSON: "3600s" or "1.5s".
std::optional<double>
parse_duration_seconds(std::string_view text)
{
    if (text.empty() || text.back() != 's') {
        return std::nullopt;
    }
    text.remove_suffix(1);
    double value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size() || value < 0) {
        return std::nullopt;
    }
    return value;
}

} // namespace

GeminiRequestParser::GeminiRequestParser(const ruleset::Rules& rules,
                                         const model::TokenEstimator& estimator)
    : BodyParser(rules, estimator, model::ApiFormat::gemini, "contents")
{}

void
GeminiRequestParser::reset_body()
{
    m_cache_create = false;
    m_ttl_seconds.reset();
    m_expire_time.reset();
}

bool
GeminiRequestParser::body_member(std::string_view key, od::value value)
{
    model::Request& r = request();
    if (key == "model") {
        read_model("model", value);
        if (r.model.rfind("models/", 0) == 0) {
            r.model.erase(0, 7);
        }
    } else if (key == "systemInstruction" || key == "system_instruction") {
        const std::string name(key);
        within(name, [&] { system_instruction(value); });
    } else if (key == "tools") {
        within("tools", [&] { tools(value); });
    } else if (key == "toolConfig" || key == "tool_config") {
        m_tool_choice = {within("toolConfig", [&] { return m_renderer.render_param(value); }),
                         true};
    } else if (key == "cachedContent" || key == "cached_content") {
        r.cached_content = std::string(within("cachedContent", [&] { return get_string(value); }));
    } else if (key == "ttl") {
        // cachedContents.create
        m_cache_create = true;
        const auto text = within("ttl", [&] { return get_string(value); });
        m_ttl_seconds = parse_duration_seconds(text);
        if (!m_ttl_seconds) {
            throw FieldError("ttl", fmt::format("expected a duration such as \"3600s\", found "
                                                "\"{}\"",
                                                text));
        }
    } else if (key == "expireTime" || key == "expire_time") {
        m_cache_create = true;
        const auto text = within("expireTime", [&] { return get_string(value); });
        auto parsed = parse_rfc3339(text);
        if (!parsed) {
            throw FieldError("expireTime", parsed.error());
        }
        m_expire_time = *parsed;
    } else if (key == "displayName" || key == "display_name") {
        m_cache_create = true;
    } else {
        return key == "generationConfig" || key == "generation_config" || key == "safetySettings" ||
               key == "safety_settings" || key == "labels";
    }
    return true;
}

void
GeminiRequestParser::parts(od::value value, Level level, PathRoot root, int index, Role role)
{
    auto& out = segments(level);
    for_each_element(value, "an array of parts", "a part", [&](od::value& part, int i) {
        const Rendered& rendered = render(part);
        if (rendered.stats.tag.empty()) {
            throw FieldError("", "expected a part with text, inlineData, functionCall, "
                                 "functionResponse, ...");
        }
        m_images = m_images || rendered.stats.images > 0;
        out.push_back(make_segment(rendered,
                                   SegmentPath{level, index, i, false, root, PathPart::parts}, role,
                                   i == 0, kind_of_part(rendered.stats)));
    });
}

void
GeminiRequestParser::system_instruction(od::value value)
{
    // The Python SDK accepts a plain string.
    const SegmentPath path{Level::system, -1, 0, true, PathRoot::system_instruction,
                           PathPart::none};
    if (plain_system(value, path, Role::system)) {
        return;
    }
    bool has_parts = false;
    for_each_member(
        value, "a content object {\"parts\": [...]}", [&](std::string_view key, od::value& v) {
            if (key == "parts") {
                within("parts", [&] {
                    parts(v, Level::system, PathRoot::system_instruction, -1, Role::system);
                });
                has_parts = true;
            }
        });
    if (!has_parts) {
        throw FieldError("parts", "missing");
    }
}

void
GeminiRequestParser::tools(od::value value)
{
    auto& out = segments(Level::tools);
    for_each_element(value, "an array of tools", "a tool", [&](od::value& tool, int t) {
        if (type_of(tool) != od::json_type::object) {
            wrong_type("a tool object", type_of(tool));
        }
        // {"functionDeclarations": [...]} gives one segment per function;
        // any other tool ({"googleSearch": {}}) is one segment.
        od::object object = get(tool.get_object(), "an object");
        bool declarations = false;
        for (auto field : object) {
            const auto key = key_of(field);
            if (key != "functionDeclarations" && key != "function_declarations") {
                continue;
            }
            declarations = true;
            od::value list = get(field.value(), "a value");
            const std::string name(key);
            within(name, [&] {
                if (type_of(list) != od::json_type::array) {
                    wrong_type("an array of function declarations", type_of(list));
                }
                int k = 0;
                for (auto d : get(list.get_array(), "an array")) {
                    od::value decl = get(d, "a function declaration");
                    within("", static_cast<std::size_t>(k), [&] {
                        const Rendered& rendered = render(decl);
                        out.push_back(
                            make_segment(rendered,
                                         SegmentPath{Level::tools, t, k, false, PathRoot::tools,
                                                     PathPart::function_declarations},
                                         Role::none, false, SegmentKind::tool));
                    });
                    ++k;
                }
            });
        }
        if (!declarations) {
            (void)get(object.reset(), "an object");
            const Rendered& rendered = render(object);
            out.push_back(make_segment(
                rendered, SegmentPath{Level::tools, -1, t, false, PathRoot::tools, PathPart::none},
                Role::none, false, SegmentKind::tool));
        }
    });
}

void
GeminiRequestParser::conversation(od::value value)
{
    for_each_element(value, "an array of contents", "a content", [&](od::value& content, int m) {
        if (type_of(content) != od::json_type::object) {
            wrong_type("a content object {\"role\", \"parts\"}", type_of(content));
        }
        auto& out = segments(Level::messages);
        const std::size_t first = out.size();
        Role role = Role::user;
        bool has_parts = false;
        for (auto field : get(content.get_object(), "an object")) {
            const auto key = key_of(field);
            od::value v = get(field.value(), "a value");
            if (key == "role") {
                const auto name = within("role", [&] { return get_string(v); });
                if (name != "user" && name != "model" && name != "function") {
                    throw FieldError("role", fmt::format("expected \"user\" or \"model\", "
                                                         "found \"{}\"",
                                                         name));
                }
                role = name == "model" ? Role::assistant : Role::user;
            } else if (key == "parts") {
                within("parts",
                       [&] { parts(v, Level::messages, PathRoot::contents, m, Role::user); });
                has_parts = true;
            }
        }
        if (!has_parts) {
            throw FieldError("parts", "missing");
        }
        for (std::size_t k = first; k < out.size(); ++k) {
            out[k].role = role;
        }
    });
}

void
GeminiRequestParser::finish_body()
{
    model::Request& r = request();
    r.provider = "gemini";
    if (m_cache_create) {
        r.cache_create = model::CacheCreate{"", m_ttl_seconds, m_expire_time};
    }
    if (!r.cached_content.empty()) {
        // The cached content is the start of the prompt and is not in this body.
        Segment hidden;
        hidden.kind = SegmentKind::unlogged;
        hidden.path =
            SegmentPath{Level::system, -1, 0, true, PathRoot::system_instruction, PathPart::none};
        hidden.content = hash_bytes("cachedContent:" + r.cached_content);
        hidden.cache_control_allowed = false;
        put_first(Level::system, hidden);
        r.notes.push_back(fmt::format("reads the explicit cache {}: its content is not in this "
                                      "body (tokens inferred from usage)",
                                      r.cached_content));
    }
    add_param("tool_choice", m_tool_choice);
    add_param("images", m_images ? "yes" : "no", true);
}

} // namespace cachewise::ingest
