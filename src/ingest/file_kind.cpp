#include "ingest/file_kind.hpp"

#include "ingest/claude_code.hpp"

#include <nlohmann/json.hpp>
#include <simdjson.h>

#include <algorithm>
#include <optional>

namespace cachewise::ingest {

namespace {

bool
ends_with(std::string_view s, std::string_view tail)
{
    return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

// A `key:` or `- ` at the start of a line: YAML's block mappings and lists.
bool
yaml_like(std::string_view line)
{
    if (line.rfind("---", 0) == 0 || line.rfind("- ", 0) == 0 || line.rfind("%YAML", 0) == 0) {
        return true;
    }
    const auto colon = line.find(':');
    if (colon == std::string_view::npos || colon == 0) {
        return false;
    }
    for (std::size_t i = 0; i < colon; ++i) {
        const char c = line[i];
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.' ||
              c == '"' || c == '\'')) {
            return false;
        }
    }
    return colon + 1 == line.size() || line[colon + 1] == ' ';
}

std::string_view
first_line(std::string_view text)
{
    const auto start = text.find_first_not_of(" \t\r\n");
    if (start == std::string_view::npos) {
        return {};
    }
    text.remove_prefix(start);
    return text.substr(0, text.find('\n'));
}

// Valid JSON, but not a record ("null", a number, a string): says so.
std::optional<std::string>
json_scalar(std::string_view text)
{
    const auto line = first_line(text);
    if (const auto value = nlohmann::json::parse(line, nullptr, false); !value.is_discarded()) {
        return std::string("a JSON ") + value.type_name() +
               ", not a record (an object, or an array of them)";
    }
    return std::nullopt;
}

} // namespace

namespace {

// The formats people mistake for logs, by the bytes they open with: an
// archived log or an image attached to an issue.
struct Magic {
    std::string_view bytes;
    std::string_view what;
};
constexpr Magic k_magic[] = {
    {"\x1f\x8b", "gzip data (decompress it first)"},
    {"\x28\xb5\x2f\xfd", "zstd data (decompress it first)"},
    {"\xfd"
     "7zXZ",
     "xz data (decompress it first)"},
    {"BZh", "bzip2 data (decompress it first)"},
    {"PK\x03\x04", "a zip archive (extract it first)"},
    {"\x89PNG", "a PNG image"},
    {"\xff\xd8\xff", "a JPEG image"},
    {"%PDF-", "a PDF document"},
};

const Magic*
magic_of(std::string_view line)
{
    for (const auto& m : k_magic) {
        if (line.substr(0, m.bytes.size()) == m.bytes) {
            return &m;
        }
    }
    return nullptr;
}

} // namespace

bool
looks_binary(std::string_view line)
{
    line = first_line(line);
    if (magic_of(line) != nullptr) {
        return true;
    }
    const bool control = std::any_of(line.begin(), line.end(), [](char c) {
        return (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\r') || c == 0x7f;
    });
    // The rest of a character cut in two by rotation: at most 3 bytes.
    for (int i = 0; i < 3 && !line.empty() && (static_cast<unsigned char>(line[0]) & 0xC0) == 0x80;
         ++i) {
        line.remove_prefix(1);
    }
    return control || !simdjson::validate_utf8(line.data(), line.size());
}

std::string
describe_non_json(std::string_view line)
{
    line = first_line(line);
    if (line.empty()) {
        return "the file is empty";
    }
    if (const auto* magic = magic_of(line)) {
        return "looks like " + std::string(magic->what);
    }
    if (looks_binary(line)) {
        return "looks like binary data";
    }

    if (line.rfind("interactions:", 0) == 0) {
        return "looks like a VCR cassette (YAML)";
    }
    if (yaml_like(line)) {
        return "looks like YAML";
    }
    if (line.front() == '<') {
        return "looks like HTML or XML";
    }
    if (line.front() == '#') {
        return "looks like Markdown";
    }
    return "looks like plain text";
}

std::string
non_json_reason(std::string_view first_line)
{
    if (auto scalar = json_scalar(first_line)) {
        return *scalar;
    }
    return "not JSON: " + describe_non_json(first_line);
}

std::string
describe_non_template(std::string_view text, std::string_view path)
{
    const std::string_view line = first_line(text);
    const std::string reads = ": use analyze or audit";
    if (ends_with(path, ".traj.json")) {
        return "an agent trajectory" + reads;
    }
    if (line.empty()) {
        return "an empty file";
    }
    if (line.rfind("event:", 0) == 0 || line.rfind("data:", 0) == 0) {
        return "an SSE response stream" + reads;
    }
    if (line.front() != '{' && line.front() != '[') {
        if (line.rfind("interactions:", 0) == 0) {
            return "a VCR cassette" + reads;
        }
        return json_scalar(line).value_or("not JSON (" + describe_non_json(line) + ")");
    }
    if (line.front() == '{' && looks_like_claude_code(line)) {
        return "a Claude Code transcript" + reads;
    }
    const auto whole = nlohmann::json::parse(text, nullptr, false);
    if (whole.is_discarded()) {
        const auto head = nlohmann::json::parse(line, nullptr, false);
        return head.is_discarded() ? "" : "an exchange log (one record a line)" + reads;
    }
    if (whole.is_array()) {
        return "an array of records" + reads;
    }
    if (!whole.is_object()) {
        return "";
    }
    if (whole.contains("trajectory_format") || whole.contains("trajectory")) {
        return "an agent trajectory" + reads;
    }
    if (whole.contains("resourceSpans") || whole.contains("traceId")) {
        return "an OpenTelemetry export" + reads;
    }
    if (whole.contains("request") && whole.contains("response")) {
        return "an exchange record (request and response)" + reads;
    }
    // A call logged with its response (OpenHands' and LiteLLM's per-call
    // logs, a body saved with what came back), or in LiteLLM's wrapper
    // ("kwargs"): a record, not a template. No API's request body has a
    // top-level "response" or "kwargs".
    const bool conversation =
        whole.contains("messages") || whole.contains("contents") || whole.contains("input");
    if ((whole.contains("response") && conversation) ||
        (whole.contains("kwargs") && whole.contains("messages"))) {
        return "a per-call log (a request with its response)" + reads;
    }
    return "";
}

std::string
not_a_template(std::string_view path, std::string_view kind)
{
    return std::string(path) + ": not a request body or template: " + std::string(kind);
}

} // namespace cachewise::ingest
