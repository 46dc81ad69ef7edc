#include "ingest/vcr_cassette.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <yaml-cpp/yaml.h>
#include <zlib.h>

namespace cachewise::ingest {

namespace {

using Json = nlohmann::ordered_json;

constexpr std::string_view k_binary_tag = "tag:yaml.org,2002:binary";

// A plain scalar as YAML 1.1 types it (vcrpy writes with PyYAML): null,
// booleans, integers and floats; quoted scalars stay strings.
Json
plain_scalar(const std::string& s)
{
    if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") {
        return nullptr;
    }
    if (s == "true" || s == "True" || s == "TRUE") {
        return true;
    }
    if (s == "false" || s == "False" || s == "FALSE") {
        return false;
    }
    const bool numeric = std::isdigit(static_cast<unsigned char>(s.back())) != 0 &&
                         s.find_first_not_of("+-0123456789.eE") == std::string::npos;
    if (numeric) {
        char* end = nullptr;
        if (s.find_first_of(".eE") == std::string::npos) {
            const long long i = std::strtoll(s.c_str(), &end, 10);
            if (end == s.c_str() + s.size()) {
                return i;
            }
        }
        const double d = std::strtod(s.c_str(), &end);
        if (end == s.c_str() + s.size()) {
            return d;
        }
    }
    return s;
}

// A YAML alias repeats a node without repeating its text, and nested ones
// multiply ("billion laughs": 757 bytes became 8.5 GB of JSON; a 100 KB
// string anchored and nested, 6 GB). Without aliases a document holds fewer
// nodes than twice its bytes, and no more scalar bytes than it has, so an
// interaction may expand to that many of each and no more (the cassette's
// own size decides the budget, given by the caller).
struct NodeBudget {
    std::size_t nodes = 0;
    std::size_t bytes = 0;
    void take(std::size_t scalar_bytes)
    {
        if (nodes == 0 || scalar_bytes > bytes) {
            throw std::runtime_error("its YAML aliases expand to more than twice the cassette's "
                                     "size (an alias bomb?)");
        }
        --nodes;
        bytes -= scalar_bytes;
    }
};

Json
to_json(const YAML::Node& node, NodeBudget& budget)
{
    budget.take(node.IsScalar() ? node.Scalar().size() : 0);
    switch (node.Type()) {
    case YAML::NodeType::Map: {
        Json object = Json::object();
        for (const auto& kv : node) {
            object[kv.first.as<std::string>()] = to_json(kv.second, budget);
        }
        return object;
    }
    case YAML::NodeType::Sequence: {
        Json array = Json::array();
        for (const auto& item : node) {
            array.push_back(to_json(item, budget));
        }
        return array;
    }
    case YAML::NodeType::Scalar:
        if (node.Tag() == k_binary_tag) {
            const auto bytes = node.as<YAML::Binary>();
            return std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size());
        }
        return node.Tag() == "?" ? plain_scalar(node.Scalar()) : Json(node.Scalar());
    default:
        return nullptr;
    }
}

// The bytes of a `body` (a string, !!binary, or vcrpy's {string: ...}).
std::optional<std::string>
body_bytes(const YAML::Node& body)
{
    if (!body || body.IsNull()) {
        return std::nullopt;
    }
    if (body.IsMap()) {
        return body_bytes(body["string"]);
    }
    if (!body.IsScalar()) {
        return std::nullopt;
    }
    if (body.Tag() == k_binary_tag) {
        const auto bytes = body.as<YAML::Binary>();
        return std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    }
    return body.Scalar();
}

// A request or response body as JSON: parsed_body, else body parsed as JSON;
// a body that is not JSON (an SSE stream) stays a string, which the response
// reader takes as a stream.
std::optional<Json>
body_of(const YAML::Node& message, NodeBudget& budget, std::string& error)
{
    if (const auto parsed = message["parsed_body"]; parsed && !parsed.IsNull()) {
        return to_json(parsed, budget);
    }
    auto bytes = body_bytes(message["body"]);
    if (!bytes || bytes->empty()) {
        return std::nullopt;
    }
    if (!gunzip_if_compressed(*bytes, error)) {
        return std::nullopt;
    }
    auto json = Json::parse(*bytes, nullptr, false);
    if (json.is_discarded()) {
        return Json(*bytes);
    }
    return json;
}

std::string
first_header(const YAML::Node& headers, std::string_view name)
{
    if (!headers || !headers.IsMap()) {
        return "";
    }
    for (const auto& kv : headers) {
        std::string key = kv.first.as<std::string>();
        for (auto& c : key) {
            c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        }
        if (key != name) {
            continue;
        }
        if (kv.second.IsSequence() && kv.second.size() > 0) {
            return kv.second[0].as<std::string>();
        }
        if (kv.second.IsScalar()) {
            return kv.second.as<std::string>();
        }
    }
    return "";
}

// A model call's endpoint, and for Bedrock the model id the URL names.
struct Endpoint {
    bool model_call = false;
    std::string bedrock_model;
};

std::string
percent_decoded(std::string_view s)
{
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '%' && i + 2 < s.size()) {
            out += static_cast<char>(
                std::strtol(std::string(s.substr(i + 1, 2)).c_str(), nullptr, 16));
            i += 2;
        } else {
            out += s[i];
        }
    }
    return out;
}

Endpoint
endpoint_of(std::string_view uri)
{
    Endpoint e;
    const auto query = uri.find('?');
    const std::string_view path = uri.substr(0, query);
    const auto ends = [&](std::string_view tail) {
        return path.size() >= tail.size() && path.substr(path.size() - tail.size()) == tail;
    };
    if (const auto at = path.find("/model/"); at != std::string_view::npos) {
        const auto begin = at + 7;
        const auto slash = path.find('/', begin);
        if (slash != std::string_view::npos) {
            e.bedrock_model = percent_decoded(path.substr(begin, slash - begin));
            const auto action = path.substr(slash + 1);
            e.model_call = action == "invoke" || action == "invoke-with-response-stream" ||
                           action == "converse" || action == "converse-stream";
            return e;
        }
    }
    e.model_call = ends("/messages") || ends("/chat/completions") || ends("/responses") ||
                   ends(":generateContent") || ends(":streamGenerateContent") ||
                   ends("/cachedContents");
    return e;
}

// One interaction as an exchange record; nothing for a call that is not a
// model request. Throws std::runtime_error for a broken one.
std::optional<Json>
record_of(const YAML::Node& interaction, NodeBudget budget)
{
    const auto request = interaction["request"];
    const auto response = interaction["response"];
    if (!request || !request.IsMap()) {
        throw std::runtime_error("expected a `request` map");
    }
    const std::string uri = request["uri"] ? request["uri"].as<std::string>() : "";
    const std::string method = request["method"] ? request["method"].as<std::string>() : "POST";
    const Endpoint endpoint = endpoint_of(uri);
    if (method != "POST" || !endpoint.model_call) {
        return std::nullopt;
    }
    std::string error;
    auto body = body_of(request, budget, error);
    if (!error.empty()) {
        throw std::runtime_error("request body: " + error);
    }
    if (!body) {
        throw std::runtime_error("a model call without a request body");
    }
    if (!body->is_object()) {
        throw std::runtime_error("request body: not a JSON object");
    }
    Json record = Json::object();
    if (!endpoint.bedrock_model.empty()) {
        if (!body->contains("model") && !body->contains("modelId")) {
            (*body)["model"] = endpoint.bedrock_model;
        }
        record["provider"] = "bedrock";
    }
    record["request"] = std::move(*body);
    if (response && response.IsMap()) {
        auto answer = body_of(response, budget, error);
        if (!error.empty()) {
            throw std::runtime_error("response body: " + error);
        }
        if (answer) {
            record["response"] = std::move(*answer);
        }
        const auto date = http_date_to_rfc3339(first_header(response["headers"], "date"));
        if (!date.empty()) {
            record["started_at"] = date;
        }
    }
    return record;
}

} // namespace

bool
gunzip_if_compressed(std::string& bytes, std::string& error)
{
    if (bytes.size() < 2 || static_cast<unsigned char>(bytes[0]) != 0x1f ||
        static_cast<unsigned char>(bytes[1]) != 0x8b) {
        return true;
    }
    z_stream z{};
    if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) {
        error = "gzip: cannot start inflating";
        return false;
    }
    z.next_in = reinterpret_cast<Bytef*>(bytes.data());
    z.avail_in = static_cast<uInt>(bytes.size());
    std::string out;
    std::array<char, 1 << 16> chunk{};
    int rc = Z_OK;
    while (rc == Z_OK) {
        z.next_out = reinterpret_cast<Bytef*>(chunk.data());
        z.avail_out = static_cast<uInt>(chunk.size());
        rc = inflate(&z, Z_NO_FLUSH);
        out.append(chunk.data(), chunk.size() - z.avail_out);
        if (rc == Z_BUF_ERROR && z.avail_in == 0) {
            break;
        }
    }
    inflateEnd(&z);
    if (rc != Z_STREAM_END) {
        error = fmt::format("gzip: broken stream ({})", z.msg != nullptr ? z.msg : "truncated");
        return false;
    }
    bytes = std::move(out);
    return true;
}

std::string
http_date_to_rfc3339(std::string_view date)
{
    // IMF-fixdate: "Sun, 06 Nov 1994 08:49:37 GMT".
    static constexpr std::array<std::string_view, 12> k_months = {
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    if (date.size() != 29 || date.substr(25) != " GMT") {
        return "";
    }
    const auto month = std::find(k_months.begin(), k_months.end(), date.substr(8, 3));
    if (month == k_months.end()) {
        return "";
    }
    return fmt::format("{}-{:02}-{}T{}Z", date.substr(12, 4), month - k_months.begin() + 1,
                       date.substr(5, 2), date.substr(17, 8));
}

namespace {

// One interaction, at `line` of the file.
void
read_interaction(const YAML::Node& interaction, std::uint64_t line, std::size_t text_size,
                 const CassetteReader::RecordCallback& on_record,
                 const CassetteReader::SkipCallback& on_skip,
                 const CassetteReader::ErrorCallback& on_error)
{
    try {
        const auto record =
            record_of(interaction, NodeBudget{2 * text_size + 1024, 2 * text_size + 1024});
        if (!record) {
            on_skip();
            return;
        }
        on_record(record->dump(-1, ' ', false, Json::error_handler_t::replace), line);
    } catch (const std::exception& e) {
        on_error(line, e.what());
    }
}

std::size_t
indent_of(std::string_view line)
{
    const auto n = line.find_first_not_of(' ');
    return n == std::string_view::npos ? line.size() : n;
}

// A cassette whose YAML is broken somewhere: the items of its top-level
// `interactions:` list are cut apart by their "- " lines and parsed one by
// one, so a broken interaction costs itself only. False when the text has
// no such list.
bool
read_items_apart(const std::string& text, const CassetteReader::RecordCallback& on_record,
                 const CassetteReader::SkipCallback& on_skip,
                 const CassetteReader::ErrorCallback& on_error)
{
    std::vector<std::string_view> lines;
    for (std::size_t at = 0; at <= text.size();) {
        const auto end = std::min(text.find('\n', at), text.size());
        lines.emplace_back(text.data() + at, end - at);
        at = end + 1;
    }
    std::size_t i = 0;
    while (i < lines.size() && lines[i].substr(0, 13) != "interactions:") {
        ++i;
    }
    if (++i >= lines.size()) {
        return false;
    }
    const std::size_t indent = indent_of(lines[i]);
    const auto is_item = [&](std::string_view l) {
        return indent_of(l) == indent && l.substr(indent, 2) == "- ";
    };
    const auto ends_list = [&](std::string_view l) {
        const auto n = indent_of(l);
        return n < l.size() && l[n] != '#' && (n < indent || (n == indent && !is_item(l)));
    };
    if (!is_item(lines[i])) {
        return false;
    }
    while (i < lines.size() && is_item(lines[i])) {
        const std::size_t first = i;
        std::string chunk;
        do {
            chunk.append(lines[i].substr(std::min(indent, indent_of(lines[i])))).append("\n");
            ++i;
        } while (i < lines.size() && !is_item(lines[i]) && !ends_list(lines[i]));
        try {
            const YAML::Node items = YAML::Load(chunk);
            if (items.IsSequence() && items.size() == 1) {
                read_interaction(items[0], first + 1, chunk.size(), on_record, on_skip, on_error);
            } else {
                on_error(first + 1, "not an interaction of the cassette");
            }
        } catch (const YAML::Exception& e) {
            on_error(first + 1 + static_cast<std::uint64_t>(std::max(0, e.mark.line)),
                     fmt::format("not valid YAML: {} (the interaction is skipped, the others "
                                 "are read)",
                                 e.msg));
        }
    }
    return true;
}

} // namespace

std::string
CassetteReader::read(const std::string& text, const RecordCallback& on_record,
                     const SkipCallback& on_skip, const ErrorCallback& on_error)
{
    YAML::Node root;
    try {
        root = YAML::Load(text);
    } catch (const YAML::Exception& e) {
        if (read_items_apart(text, on_record, on_skip, on_error)) {
            return "";
        }
        return fmt::format("not a VCR cassette: YAML error at line {}: {}", e.mark.line + 1, e.msg);
    }
    const auto interactions = root.IsMap() ? root["interactions"] : YAML::Node();
    if (!interactions || !interactions.IsSequence()) {
        return "not a VCR cassette: no `interactions` list";
    }
    for (const auto& interaction : interactions) {
        read_interaction(interaction, static_cast<std::uint64_t>(interaction.Mark().line) + 1,
                         text.size(), on_record, on_skip, on_error);
    }
    return "";
}

} // namespace cachewise::ingest
