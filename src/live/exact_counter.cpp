#include "live/exact_counter.hpp"

#include "live/retrying_post.hpp"
#include "util/error.hpp"
#include "util/file.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <charconv>
#include <cstdlib>
#include <fstream>
#include <unistd.h>

namespace cachewise::live {

namespace {

using Json = nlohmann::ordered_json;

const Json k_dot_message = {{"role", "user"}, {"content", "."}};

// Keeps the first `n` entries of an array member.
void
truncate(Json& array, std::size_t n)
{
    if (array.is_array() && array.size() > n) {
        array.erase(array.begin() + static_cast<std::ptrdiff_t>(n), array.end());
    }
}

// `out` with the conversation member `key` of `body` cut after the segment at
// `path` (its message, then its content block), as JSON; nullopt where the
// body has no such list.
std::optional<std::string>
with_conversation(Json out, const Json& body, const char* key, const model::SegmentPath& path)
{
    if (!body.contains(key) || !body[key].is_array() || path.message < 0) {
        return std::nullopt;
    }
    Json conversation = body[key];
    truncate(conversation, static_cast<std::size_t>(path.message) + 1);
    if (!path.whole_content && conversation.back().contains("content")) {
        truncate(conversation.back()["content"], static_cast<std::size_t>(path.index) + 1);
    }
    out[key] = std::move(conversation);
    return out.dump();
}

std::optional<std::string>
anthropic_prefix(const Json& body, const model::SegmentPath& path, bool& needs_baseline)
{
    Json out;
    for (const char* key : {"model", "tools", "system", "tool_choice", "thinking"}) {
        if (body.contains(key)) {
            out[key] = body[key];
        }
    }
    needs_baseline = path.level != model::Level::messages;
    if (path.level == model::Level::tools) {
        out.erase("system");
        truncate(out["tools"], static_cast<std::size_t>(path.index) + 1);
    } else if (path.level == model::Level::system && !path.whole_content) {
        truncate(out["system"], static_cast<std::size_t>(path.index) + 1);
    }
    if (needs_baseline) {
        out["messages"] = Json::array({k_dot_message});
        return out.dump();
    }
    return with_conversation(std::move(out), body, "messages", path);
}

std::optional<std::string>
responses_prefix(const Json& body, const model::SegmentPath& path, bool& needs_baseline)
{
    Json out;
    for (const char* key : {"model", "instructions", "tools"}) {
        if (body.contains(key)) {
            out[key] = body[key];
        }
    }
    needs_baseline = path.root != model::PathRoot::input;
    if (needs_baseline) {
        out["input"] = ".";
        return out.dump();
    }
    return with_conversation(std::move(out), body, "input", path);
}

std::string
file_safe(const std::string& text)
{
    std::string out = text;
    for (char& c : out) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                        (c >= '0' && c <= '9') || c == '.' || c == '-';
        c = ok ? c : '_';
    }
    return out;
}

} // namespace

std::optional<std::string>
prefix_body(const std::string& body_json, const model::Request& request, std::size_t segment,
            bool& needs_baseline)
{
    const auto body = Json::parse(body_json, nullptr, false);
    if (body.is_discarded() || !body.is_object() || segment >= request.segments.size()) {
        return std::nullopt;
    }
    const auto& path = request.segments[segment].path;
    if (request.format == model::ApiFormat::anthropic) {
        return anthropic_prefix(body, path, needs_baseline);
    }
    if (request.format == model::ApiFormat::openai_responses) {
        return responses_prefix(body, path, needs_baseline);
    }
    return std::nullopt;
}

std::string
baseline_body(const model::Request& request)
{
    Json out;
    out["model"] = request.model;
    if (request.format == model::ApiFormat::openai_responses) {
        out["input"] = ".";
    } else {
        out["messages"] = Json::array({k_dot_message});
    }
    return out.dump();
}

std::filesystem::path
default_count_cache()
{
    const auto base = user_cache_dir();
    return base ? *base / "cachewise" / "token-counts" : std::filesystem::path();
}

ExactCounter::ExactCounter(HttpClient& client, std::optional<std::string> base_url,
                           std::optional<std::string> api_key_file, std::filesystem::path cache_dir,
                           RetryPolicy retry)
    : m_client(client), m_base_url(std::move(base_url)), m_key_file(std::move(api_key_file)),
      m_dir(std::move(cache_dir)), m_retry(retry)
{}

namespace {

// A count cached by an earlier run, when the file holds one.
std::optional<std::int64_t>
read_count(const std::filesystem::path& file)
{
    const auto text = read_file(file.string());
    std::int64_t n = 0;
    if (!text || std::from_chars(text->data(), text->data() + text->size(), n).ec != std::errc() ||
        n < 0) {
        return std::nullopt;
    }
    return n;
}

} // namespace

std::int64_t
ExactCounter::counted(const std::string& key, const Endpoint& endpoint, const std::string& body)
{
    // No cache folder (no absolute $XDG_CACHE_HOME or $HOME): every count is asked.
    const auto file = m_dir / (key + ".count");
    if (const auto cached = m_dir.empty() ? std::nullopt : read_count(file)) {
        ++m_cached;
        return *cached;
    }
    const auto api_key = value_or_throw(read_api_key(endpoint.key_variable, m_key_file), "");
    if (!api_key && !m_base_url) {
        throw Error(fmt::format("--exact-tokens: no API key: set {} or pass --api-key-file",
                                endpoint.key_variable));
    }
    Attempts attempts;
    const auto response = post_with_retries(
        m_client, {endpoint.count_tokens_url(), endpoint.headers(api_key, false), body, {}},
        m_retry, api_key, "count_tokens", attempts);
    ++m_calls;
    const auto j = Json::parse(response.body, nullptr, false);
    if (j.is_discarded() || !j.contains("input_tokens") || !j["input_tokens"].is_number_integer()) {
        throw Error(fmt::format("count_tokens at {}: the answer has no input_tokens count",
                                origin_of(endpoint.count_tokens_url())),
                    ExitCode::network);
    }
    const auto n = j["input_tokens"].get<std::int64_t>();
    if (m_dir.empty()) {
        return n;
    }
    // Written whole under a temporary name, then renamed: a reader never sees half.
    std::error_code ec;
    std::filesystem::create_directories(m_dir, ec);
    const auto tmp = m_dir / fmt::format("{}.{}.tmp", key, ::getpid());
    {
        std::ofstream out(tmp, std::ios::binary);
        out << n << "\n";
    }
    std::filesystem::rename(tmp, file, ec);
    return n;
}

std::optional<std::int64_t>
ExactCounter::count_prefix(const std::string& body_json, const model::Request& request,
                           std::size_t segment)
{
    bool needs_baseline = false;
    const auto body = prefix_body(body_json, request, segment, needs_baseline);
    if (!body) {
        return std::nullopt;
    }
    const Endpoint endpoint = endpoint_for(request.format, request.provider, m_base_url);
    if (!endpoint.counts_tokens) {
        return std::nullopt; // DeepSeek and gateways: no count endpoint to ask
    }
    ++m_prefixes;
    const std::string model = file_safe(request.model);
    const std::int64_t total = counted(
        fmt::format("{}-{}", model, request.segments[segment].chain.hex()), endpoint, *body);
    if (!needs_baseline) {
        return total;
    }
    const std::int64_t dot = counted(fmt::format("{}-{}-baseline", model, endpoint.provider),
                                     endpoint, baseline_body(request));
    return std::max<std::int64_t>(0, total - dot);
}

} // namespace cachewise::live
