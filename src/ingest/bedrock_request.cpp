#include "ingest/bedrock_request.hpp"

#include "ingest/block_kinds.hpp"
#include "ingest/field_error.hpp"
#include "ingest/ondemand.hpp"

#include <fmt/format.h>

namespace cachewise::ingest {

namespace {

SegmentKind
kind_of_block(const RenderStats& stats, Level level)
{
    if (level == Level::tools) {
        return SegmentKind::tool;
    }
    return kind_named(BlockVocabulary::bedrock_block, stats.tag);
}

// {"cachePoint": {"type": "default", "ttl": "5m" | "1h"}} (rules §1.10,
// B-br): a misspelt type or another TTL is not a cache point the API takes.
model::CacheControl
parse_cache_point(od::value v)
{
    if (!present(v, od::json_type::object, "an object such as {\"type\": \"default\"}")) {
        throw FieldError("", "expected an object such as {\"type\": \"default\"}, found null");
    }
    model::CacheControl cc;
    bool typed = false;
    for_each_member(v, "an object", [&](std::string_view key, od::value& member) {
        if (key == "type") {
            const auto type = within("type", [&] { return get_string(member, "\"default\""); });
            if (type != "default") {
                throw FieldError("type", fmt::format("expected \"default\", found \"{}\"", type));
            }
            typed = true;
        } else if (key == "ttl") {
            const auto ttl = within("ttl", [&] { return get_string(member, "\"5m\" or \"1h\""); });
            if (ttl != "5m" && ttl != "1h") {
                throw FieldError("ttl",
                                 fmt::format("expected \"5m\" or \"1h\", found \"{}\"", ttl));
            }
            cc.ttl = ttl == "1h" ? model::Ttl::one_hour : model::Ttl::five_minutes;
        }
    });
    if (!typed) {
        throw FieldError("type", "missing (expected \"default\")");
    }
    return cc;
}

} // namespace

BedrockConverseParser::BedrockConverseParser(const ruleset::Rules& rules,
                                             const model::TokenEstimator& estimator)
    : BodyParser(rules, estimator, model::ApiFormat::bedrock_converse, "messages")
{}

void
BedrockConverseParser::reset_body()
{
    m_leading_points.clear();
}

bool
BedrockConverseParser::body_member(std::string_view key, od::value value)
{
    if (key == "modelId" || key == "model") {
        read_model("modelId", value);
    } else if (key == "system") {
        within("system", [&] { blocks(value, Level::system, PathRoot::system, -1, Role::system); });
    } else if (key == "toolConfig") {
        within("toolConfig", [&] { tool_config(value); });
    } else {
        return key == "inferenceConfig" || key == "additionalModelRequestFields" ||
               key == "additionalModelResponseFieldPaths" || key == "guardrailConfig" ||
               key == "promptVariables" || key == "requestMetadata" || key == "performanceConfig";
    }
    return true;
}

void
BedrockConverseParser::mark(Level level, const model::CacheControl& cc)
{
    auto& out = segments(level);
    if (out.empty()) {
        m_leading_points.emplace_back(level, cc);
        return;
    }
    out.back().cache_control = cc;
}

void
BedrockConverseParser::blocks(od::value value, Level level, PathRoot root, int message, Role role)
{
    auto& out = segments(level);
    bool first = true;
    for_each_element(value, "an array of blocks", "a block", [&](od::value& block, int i) {
        if (type_of(block) != od::json_type::object) {
            wrong_type("a block object", type_of(block));
        }
        od::object object = get(block.get_object(), "an object");
        std::optional<model::CacheControl> point;
        for (auto field : object) {
            if (key_of(field) == "cachePoint") {
                od::value v = get(field.value(), "a value");
                point = within("cachePoint", [&] { return parse_cache_point(v); });
            }
        }
        if (point) {
            mark(level, *point);
            return;
        }
        (void)get(object.reset(), "an object");
        const Rendered& rendered = render(object);
        m_images = m_images || rendered.stats.images > 0;
        const PathPart part = level == Level::messages ? PathPart::content : PathPart::none;
        out.push_back(make_segment(rendered, SegmentPath{level, message, i, false, root, part},
                                   role, level == Level::messages && first,
                                   kind_of_block(rendered.stats, level)));
        if (out.back().cache_control) {
            // Converse takes cache points as blocks of their own (rules
            // §1.10); a cache_control member is InvokeModel's, not a marker here.
            out.back().cache_control.reset();
            request().notes.push_back(fmt::format(
                "{}: a cache_control member is not a Converse cache point (Bedrock Converse "
                "takes {{\"cachePoint\": {{\"type\": \"default\"}}}} blocks): ignored",
                out.back().path.str()));
        }
        first = false;
    });
}

void
BedrockConverseParser::tool_config(od::value value)
{
    for_each_member(value, "an object", [&](std::string_view key, od::value& v) {
        if (key == "tools") {
            within("tools",
                   [&] { blocks(v, Level::tools, PathRoot::tool_config, -1, Role::none); });
        } else if (key == "toolChoice") {
            m_tool_choice = {within("toolChoice", [&] { return m_renderer.render_param(v); }),
                             true};
        }
    });
}

void
BedrockConverseParser::conversation(od::value value)
{
    for_each_element(value, "an array of messages", "a message", [&](od::value& message, int m) {
        if (type_of(message) != od::json_type::object) {
            wrong_type("a message object", type_of(message));
        }
        auto& out = segments(Level::messages);
        const std::size_t first = out.size();
        std::optional<Role> role;
        bool has_content = false;
        for (auto field : get(message.get_object(), "an object")) {
            const auto key = key_of(field);
            od::value v = get(field.value(), "a value");
            if (key == "role") {
                const auto name = within("role", [&] { return get_string(v); });
                if (name != "user" && name != "assistant") {
                    throw FieldError("role", fmt::format("expected \"user\" or "
                                                         "\"assistant\", found \"{}\"",
                                                         name));
                }
                role = name == "user" ? Role::user : Role::assistant;
            } else if (key == "content") {
                within("content",
                       [&] { blocks(v, Level::messages, PathRoot::messages, m, Role::user); });
                has_content = true;
            }
        }
        close_message(out, first, role, has_content);
    });
}

void
BedrockConverseParser::finish_body()
{
    model::Request& r = request();
    r.provider = "bedrock";
    // A cachePoint that opens a level marks the last block of the level before.
    for (const auto& [level, cc] : m_leading_points) {
        for (int l = static_cast<int>(level) - 1; l >= 0; --l) {
            auto& earlier = segments(static_cast<Level>(l));
            if (!earlier.empty()) {
                earlier.back().cache_control = cc;
                break;
            }
        }
    }
    add_param("tool_choice", m_tool_choice);
    add_param("images", m_images ? "yes" : "no", true);
}

} // namespace cachewise::ingest
