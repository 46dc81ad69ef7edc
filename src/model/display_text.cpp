#include "model/display_text.hpp"

#include <nlohmann/json.hpp>
#include <simdjson.h>

#include <optional>

namespace cachewise::model {

namespace {

using nlohmann::json;

// The text of a content array that holds only text blocks.
std::optional<std::string>
only_text(const json& content)
{
    if (content.is_string()) {
        return content.get<std::string>();
    }
    if (!content.is_array()) {
        return std::nullopt;
    }
    std::string out;
    for (const auto& block : content) {
        // A `type` that is not a string is not "text" (json::value would throw).
        if (!block.is_object() || !block.contains("type") || block["type"] != "text" ||
            !block.contains("text") || !block["text"].is_string()) {
            return std::nullopt;
        }
        out += block["text"].get<std::string>();
    }
    return out;
}

// The last member named `key` (nlohmann keeps the last of duplicate keys).
std::optional<simdjson::dom::element>
last_member(simdjson::dom::object object, std::string_view key)
{
    std::optional<simdjson::dom::element> found;
    for (const auto field : object) {
        if (field.key == key) {
            found = field.value;
        }
    }
    return found;
}

std::optional<std::string_view>
string_member(simdjson::dom::element element, std::string_view key)
{
    simdjson::dom::object object;
    std::string_view text;
    if (element.get_object().get(object) != simdjson::SUCCESS) {
        return std::nullopt;
    }
    const auto member = last_member(object, key);
    if (!member || member->get_string().get(text) != simdjson::SUCCESS) {
        return std::nullopt;
    }
    return text;
}

// The text of a content array that holds only text blocks (the DOM form).
std::optional<std::string>
only_text(simdjson::dom::element content)
{
    std::string_view text;
    if (content.get_string().get(text) == simdjson::SUCCESS) {
        return std::string(text);
    }
    simdjson::dom::array blocks;
    if (content.get_array().get(blocks) != simdjson::SUCCESS) {
        return std::nullopt;
    }
    std::string out;
    for (const auto block : blocks) {
        const auto part = string_member(block, "text");
        if (string_member(block, "type") != "text" || !part) {
            return std::nullopt;
        }
        out += *part;
    }
    return out;
}

// display_text from a document simdjson read whole (it validates every
// byte, as nlohmann does).
std::string
display_from(simdjson::dom::element root, std::string_view rendered, SegmentKind kind)
{
    simdjson::dom::object object;
    if (root.get_object().get(object) != simdjson::SUCCESS) {
        return std::string(rendered);
    }
    if (kind == SegmentKind::tool_result) {
        const auto content = last_member(object, "content");
        return (content ? only_text(*content) : std::nullopt).value_or(std::string(rendered));
    }
    const char* key = kind == SegmentKind::text       ? "text"
                      : kind == SegmentKind::thinking ? "thinking"
                                                      : nullptr;
    const auto text = key == nullptr ? std::nullopt : string_member(root, key);
    return text ? std::string(*text) : std::string(rendered);
}

// The nlohmann form, for what simdjson refuses (numbers beyond 64 bits,
// nesting past its depth): the two agree on everything both read.
std::string
display_from(const json& j, std::string_view rendered, SegmentKind kind)
{
    if (!j.is_object()) {
        return std::string(rendered);
    }
    const auto member = [&](const char* key) -> std::optional<std::string> {
        if (j.contains(key) && j[key].is_string()) {
            return j[key].get<std::string>();
        }
        return std::nullopt;
    };
    switch (kind) {
    case SegmentKind::text:
        if (auto t = member("text")) {
            return *t;
        }
        break;
    case SegmentKind::thinking:
        if (auto t = member("thinking")) {
            return *t;
        }
        break;
    case SegmentKind::tool_result:
        if (j.contains("content")) {
            if (auto t = only_text(j["content"])) {
                return *t;
            }
        }
        break;
    default:
        break;
    }
    return std::string(rendered);
}

} // namespace

std::string
display_text(std::string_view rendered, SegmentKind kind)
{
    // simdjson's DOM first: nlohmann's parse was a tenth of the analysis of
    // an agent log (every segment of a new conversation is read for
    // dynamic fields).
    thread_local simdjson::dom::parser parser;
    simdjson::dom::element root;
    if (parser.parse(rendered.data(), rendered.size()).get(root) == simdjson::SUCCESS) {
        return display_from(root, rendered, kind);
    }
    return display_from(json::parse(rendered.begin(), rendered.end(), nullptr, false), rendered,
                        kind);
}

} // namespace cachewise::model
