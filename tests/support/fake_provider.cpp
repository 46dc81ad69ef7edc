#include "fake_provider.hpp"

#include "ingest/loader.hpp"
#include "model/breakpoints.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <arpa/inet.h>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <netinet/in.h>
#include <stdexcept>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

namespace cachewise::test {

namespace {

using Json = nlohmann::json;

// Reads a request body the way cachewise does, for its blocks and counts.
model::Request
read_body(const std::string& body, const ruleset::Rules& rules)
{
    static std::atomic<int> counter{0};
    const auto path = std::filesystem::temp_directory_path() /
                      fmt::format("cachewise-fake-{}-{}.json", ::getpid(), counter++);
    {
        std::ofstream out(path, std::ios::binary);
        out << body;
    }
    ingest::LoadOptions options;
    options.format = ingest::InputFormat::request;
    ingest::Loader loader(rules, options);
    std::vector<model::Request> requests;
    const auto summary =
        loader.load({path.string()}, [&](model::Request&& r) { requests.push_back(std::move(r)); });
    std::filesystem::remove(path);
    if (summary.error_count > 0 || requests.size() != 1) {
        throw std::runtime_error(summary.errors.empty() ? "not one request"
                                                        : summary.errors.front().str());
    }
    return std::move(requests.front());
}

std::string
error_body(const std::string& type, const std::string& message)
{
    return Json{{"type", "error"}, {"error", {{"type", type}, {"message", message}}}}.dump();
}

std::string_view
reason_phrase(int status)
{
    switch (status) {
    case 200:
        return "OK";
    case 400:
        return "Bad Request";
    case 401:
        return "Unauthorized";
    case 404:
        return "Not Found";
    case 429:
        return "Too Many Requests";
    case 529:
        return "Overloaded";
    default:
        return status >= 500 ? "Server Error" : "Error";
    }
}

bool
send_all(int fd, std::string_view data)
{
    while (!data.empty()) {
        const ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
        if (n <= 0) {
            return false;
        }
        data.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
}

std::string
event(const std::string& name, const Json& data)
{
    return fmt::format("event: {}\ndata: {}\n\n", name, data.dump());
}

// A Messages response as its stream: usage (and diagnostics) in
// message_start, one text delta, the output count in message_delta.
std::string
anthropic_stream(const Json& message)
{
    Json start = message;
    start["content"] = Json::array();
    std::string out = event("message_start", {{"type", "message_start"}, {"message", start}});
    out += event("content_block_start", {{"type", "content_block_start"},
                                         {"index", 0},
                                         {"content_block", {{"type", "text"}, {"text", ""}}}});
    out += event("content_block_delta", {{"type", "content_block_delta"},
                                         {"index", 0},
                                         {"delta", {{"type", "text_delta"}, {"text", "ok"}}}});
    out += event("content_block_stop", {{"type", "content_block_stop"}, {"index", 0}});
    out += event("message_delta", {{"type", "message_delta"},
                                   {"delta", {{"stop_reason", "max_tokens"}}},
                                   {"usage", {{"output_tokens", 1}}}});
    return out + event("message_stop", {{"type", "message_stop"}});
}

// A Chat Completions response as chunks, usage on the last (include_usage).
std::string
chat_stream(const Json& completion)
{
    Json chunk{{"id", completion["id"]},
               {"object", "chat.completion.chunk"},
               {"model", completion["model"]},
               {"choices", Json::array({{{"index", 0},
                                         {"delta", {{"role", "assistant"}, {"content", "ok"}}}}})}};
    Json last = chunk;
    last["choices"] = Json::array();
    last["usage"] = completion["usage"];
    return "data: " + chunk.dump() + "\n\ndata: " + last.dump() + "\n\ndata: [DONE]\n\n";
}

// A Responses response as its events, usage in response.completed.
std::string
responses_stream(const Json& response)
{
    return event("response.output_text.delta",
                 {{"type", "response.output_text.delta"}, {"delta", "ok"}}) +
           event("response.completed", {{"type", "response.completed"}, {"response", response}});
}

} // namespace

FakeProvider::FakeProvider(const ruleset::Rules& rules) : m_rules(rules)
{
    m_listen = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    socklen_t len = sizeof addr;
    if (m_listen < 0 || ::bind(m_listen, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
        ::listen(m_listen, 16) != 0 ||
        ::getsockname(m_listen, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
        throw std::runtime_error("fake provider: cannot listen on 127.0.0.1");
    }
    m_port = ntohs(addr.sin_port);
    m_acceptor = std::thread([this] { accept_loop(); });
}

FakeProvider::~FakeProvider()
{
    m_stop = true;
    ::shutdown(m_listen, SHUT_RDWR);
    ::close(m_listen);
    m_acceptor.join();
    for (auto& t : m_workers) {
        t.join();
    }
}

std::string
FakeProvider::base_url() const
{
    return fmt::format("http://127.0.0.1:{}", m_port);
}

void
FakeProvider::push_fault(Fault fault)
{
    const std::lock_guard lock(m_mutex);
    m_faults.push_back(std::move(fault));
}

void
FakeProvider::advance_clock(double seconds)
{
    const std::lock_guard lock(m_mutex);
    m_clock_offset += seconds;
}

std::vector<SeenRequest>
FakeProvider::seen() const
{
    const std::lock_guard lock(m_mutex);
    return m_seen;
}

std::size_t
FakeProvider::calls(const std::string& path) const
{
    const std::lock_guard lock(m_mutex);
    return static_cast<std::size_t>(std::count_if(
        m_seen.begin(), m_seen.end(), [&](const SeenRequest& s) { return s.path == path; }));
}

double
FakeProvider::now() const
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - m_start).count() +
           m_clock_offset;
}

void
FakeProvider::accept_loop()
{
    while (!m_stop) {
        const int fd = ::accept(m_listen, nullptr, nullptr);
        if (fd < 0) {
            if (m_stop) {
                return;
            }
            continue;
        }
        ++m_connections;
        // A short receive timeout lets the worker notice m_stop.
        timeval tv{0, 100'000};
        ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        const std::lock_guard lock(m_mutex);
        m_workers.emplace_back([this, fd] {
            serve(fd);
            ::close(fd);
        });
    }
}

namespace {

// The request line's path and the headers (names in lower case) of a head.
void
parse_head(const std::string& head, SeenRequest& request)
{
    const auto line_end = head.find("\r\n");
    const std::string request_line = head.substr(0, line_end);
    const auto sp1 = request_line.find(' ');
    const auto sp2 = request_line.find(' ', sp1 + 1);
    request.path = request_line.substr(sp1 + 1, sp2 - sp1 - 1);
    // A proxy is sent the absolute form ("http://host/v1/messages"): serve it
    // as the origin would, so that tests can see a proxy being used.
    if (const auto scheme = request.path.find("://"); scheme != std::string::npos) {
        const auto slash = request.path.find('/', scheme + 3);
        request.headers["x-fake-proxied-host"] = request.path.substr(
            scheme + 3, slash == std::string::npos ? slash : slash - scheme - 3);
        request.path = slash == std::string::npos ? "/" : request.path.substr(slash);
    }
    std::size_t at = line_end == std::string::npos ? head.size() : line_end + 2;
    while (at < head.size()) {
        auto end = head.find("\r\n", at);
        end = end == std::string::npos ? head.size() : end;
        const std::string line = head.substr(at, end - at);
        const auto colon = line.find(':');
        if (colon != std::string::npos) {
            std::string name = line.substr(0, colon);
            std::transform(name.begin(), name.end(), name.begin(),
                           [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
            std::string value = line.substr(colon + 1);
            value.erase(0, value.find_first_not_of(' '));
            request.headers[name] = value;
        }
        at = end + 2;
    }
}

// Receives more bytes; false when the peer closed or failed (timeouts retry).
bool
receive(int fd, std::string& buffer)
{
    char chunk[65536];
    const ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
    if (n > 0) {
        buffer.append(chunk, static_cast<std::size_t>(n));
        return true;
    }
    return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR);
}

} // namespace

bool
FakeProvider::read_request(int fd, std::string& buffer, SeenRequest& request)
{
    auto head_end = buffer.find("\r\n\r\n");
    while (head_end == std::string::npos) {
        if (m_stop || !receive(fd, buffer)) {
            return false;
        }
        head_end = buffer.find("\r\n\r\n");
    }
    parse_head(buffer.substr(0, head_end), request);
    const auto length_header = request.headers.find("content-length");
    const std::size_t length =
        length_header == request.headers.end() ? 0 : std::stoul(length_header->second);
    while (buffer.size() < head_end + 4 + length) {
        if (m_stop || !receive(fd, buffer)) {
            return false;
        }
    }
    request.body = buffer.substr(head_end + 4, length);
    buffer.erase(0, head_end + 4 + length);
    return true;
}

FakeProvider::Reply
FakeProvider::fault_reply(const Fault& fault, const SeenRequest& request)
{
    Reply reply;
    reply.status = fault.status;
    reply.body =
        fault.status == 529 ? error_body("overloaded_error", "Overloaded")
        : fault.status == 429
            ? error_body("rate_limit_error", "Number of requests has exceeded your rate limit")
            : error_body("api_error", "Internal server error");
    if (fault.echo_key) {
        const auto key = request.headers.find("x-api-key");
        reply.body =
            error_body("authentication_error",
                       "invalid x-api-key: " + (key == request.headers.end() ? "" : key->second));
    }
    if (!fault.retry_after.empty()) {
        reply.headers.emplace_back("retry-after", fault.retry_after);
    }
    return reply;
}

void
FakeProvider::serve(int fd)
{
    std::string buffer;
    SeenRequest request;
    while (!m_stop && read_request(fd, buffer, request)) {
        std::optional<Fault> fault;
        {
            const std::lock_guard lock(m_mutex);
            m_seen.push_back(request);
            if (!m_faults.empty()) {
                fault = m_faults.front();
                m_faults.pop_front();
            }
        }
        if (fault && fault->kind == Fault::Kind::slow) {
            std::this_thread::sleep_for(std::chrono::milliseconds(fault->delay_ms));
        }
        const Reply reply = fault && fault->kind == Fault::Kind::status
                                ? fault_reply(*fault, request)
                                : handle(request);
        std::string out = fmt::format("HTTP/1.1 {} {}\r\ncontent-type: {}\r\n", reply.status,
                                      reason_phrase(reply.status), reply.content_type);
        for (const auto& [name, value] : reply.headers) {
            out += fmt::format("{}: {}\r\n", name, value);
        }
        // A cut answer promises 100 bytes more than it sends, then closes.
        const bool truncated = fault && fault->kind == Fault::Kind::truncated;
        out += fmt::format("content-length: {}\r\n\r\n", reply.body.size() + (truncated ? 100 : 0));
        out += reply.body;
        if (!send_all(fd, out) || truncated) {
            return;
        }
        request = SeenRequest{};
    }
}

FakeProvider::Reply
FakeProvider::handle(const SeenRequest& request)
{
    try {
        if (request.path == "/v1/messages") {
            return messages(request, false);
        }
        if (request.path == "/v1/messages/count_tokens") {
            return messages(request, true);
        }
        if (request.path == "/v1/chat/completions") {
            return openai(request, false, false);
        }
        if (request.path == "/v1/responses") {
            return openai(request, true, false);
        }
        if (request.path == "/v1/responses/input_tokens") {
            return openai(request, true, true);
        }
        return {404, error_body("not_found_error", "no such endpoint: " + request.path), {}};
    } catch (const std::exception& e) {
        return {400, error_body("invalid_request_error", e.what()), {}};
    }
}

FakeProvider::Usage
FakeProvider::cache_usage(const model::Request& r)
{
    const auto bps = model::breakpoints(r);
    const std::int64_t minimum = m_rules.provider("anthropic").minimum_tokens(r.model).tokens;
    const std::uint32_t window = 20;
    const double t = now();
    // Reads: from each breakpoint back through its lookback window.
    std::optional<std::size_t> hit;
    for (const auto& bp : bps) {
        const auto top = r.segments[bp.segment].lookback_position;
        for (std::size_t k = bp.segment + 1; k-- > 0;) {
            if (top - r.segments[k].lookback_position >= window) {
                break;
            }
            const auto it = m_entries.find(r.segments[k].chain.hex());
            if (it != m_entries.end() && it->second.expires > t) {
                hit = std::max(hit.value_or(0), k);
                break;
            }
        }
    }
    Usage u;
    u.read = hit ? r.segments[*hit].cumulative_tokens : 0;
    // Writes at breakpoints past the hit that reach the minimum; 1h up to the
    // last 1h breakpoint, 5m from there to the last breakpoint.
    std::int64_t hour_end = u.read;
    std::int64_t end = u.read;
    for (const auto& bp : bps) {
        const auto& s = r.segments[bp.segment];
        if (s.cumulative_tokens < minimum || s.cumulative_tokens <= u.read) {
            continue;
        }
        const bool hour = bp.cache_control.ttl == model::Ttl::one_hour;
        m_entries[s.chain.hex()].expires = t + (hour ? 3600 : 300);
        end = std::max(end, s.cumulative_tokens);
        if (hour) {
            hour_end = std::max(hour_end, s.cumulative_tokens);
        }
    }
    if (hit) {
        auto& e = m_entries[r.segments[*hit].chain.hex()];
        e.expires = std::max(e.expires, t + 300); // a read refreshes the entry
    }
    u.write_1h = hour_end - u.read;
    u.write_5m = end - hour_end;
    u.fresh = r.prompt_tokens() - u.read - u.write_1h - u.write_5m + m_uncounted;
    return u;
}

std::string
FakeProvider::miss_reason(const std::string& previous_id, const Previous& mine) const
{
    const auto it = m_messages.find(previous_id);
    if (it == m_messages.end()) {
        return "previous_message_not_found";
    }
    const Previous& was = it->second;
    if (was.model != mine.model) {
        return "model_changed";
    }
    if (was.tools != mine.tools) {
        return "tools_changed";
    }
    if (was.system != mine.system) {
        return "system_changed";
    }
    if (mine.messages.size() < was.messages.size() ||
        !std::equal(was.messages.begin(), was.messages.end(), mine.messages.begin())) {
        return "messages_changed";
    }
    return {}; // no miss
}

FakeProvider::Reply
FakeProvider::messages(const SeenRequest& request, bool count_only)
{
    const auto version = request.headers.find("anthropic-version");
    if (request.headers.count("x-api-key") == 0 || version == request.headers.end() ||
        version->second != "2023-06-01") {
        return {401, error_body("authentication_error", "x-api-key header is required"), {}};
    }
    const model::Request r = read_body(request.body, m_rules);
    if (count_only) {
        return {200, Json{{"input_tokens", r.prompt_tokens()}}.dump(), {}};
    }
    const std::lock_guard lock(m_mutex);
    const Usage u = cache_usage(r);
    Previous mine;
    mine.model = r.model;
    for (const auto& s : r.segments) {
        auto& level = s.path.level == model::Level::tools
                          ? mine.tools
                          : (s.path.level == model::Level::system ? mine.system : mine.messages);
        level.push_back(s.content.hex());
    }
    const std::string id = fmt::format("msg_fake_{:04}", m_next_id++);
    Json response{
        {"id", id},
        {"type", "message"},
        {"role", "assistant"},
        {"model", r.model},
        {"content", Json::array({{{"type", "text"}, {"text", "ok"}}})},
        {"stop_reason", "max_tokens"},
        {"usage",
         {{"input_tokens", u.fresh},
          {"cache_creation_input_tokens", u.write_5m + u.write_1h},
          {"cache_read_input_tokens", u.read},
          {"cache_creation",
           {{"ephemeral_5m_input_tokens", u.write_5m}, {"ephemeral_1h_input_tokens", u.write_1h}}},
          {"output_tokens", 1}}}};
    const auto body = Json::parse(request.body);
    if (body.contains("diagnostics")) {
        const std::string reason =
            miss_reason(body["diagnostics"].value("previous_message_id", ""), mine);
        response["diagnostics"] = {{"cache_miss_reason", reason.empty() ? Json() : Json(reason)}};
    }
    m_messages[id] = std::move(mine);
    if (body.value("stream", false)) {
        return {200, anthropic_stream(response), {}, "text/event-stream"};
    }
    return {200, response.dump(), {}};
}

FakeProvider::Reply
FakeProvider::openai(const SeenRequest& request, bool responses, bool count_only)
{
    const auto auth = request.headers.find("authorization");
    if (auth == request.headers.end() || auth->second.rfind("Bearer ", 0) != 0) {
        return {401, error_body("invalid_request_error", "missing bearer authentication"), {}};
    }
    const model::Request r = read_body(request.body, m_rules);
    const std::int64_t total = r.prompt_tokens();
    if (count_only) {
        return {200, Json{{"object", "response.input_tokens"}, {"input_tokens", total}}.dump(), {}};
    }
    const std::lock_guard lock(m_mutex);
    const double t = now();
    std::int64_t read = 0;
    for (std::size_t k = r.segments.size(); k-- > 0;) {
        const auto it = m_entries.find(r.segments[k].chain.hex());
        if (it != m_entries.end() && it->second.expires > t &&
            r.segments[k].cumulative_tokens >= 1024) {
            read = r.segments[k].cumulative_tokens / 128 * 128;
            break;
        }
    }
    if (!r.segments.empty() && total >= 1024) {
        m_entries[r.segments.back().chain.hex()].expires = t + 600;
    }
    const std::string id =
        fmt::format("{}_fake_{:04}", responses ? "resp" : "chatcmpl", m_next_id++);
    Json response;
    if (responses) {
        response = {{"id", id},
                    {"object", "response"},
                    {"model", r.model},
                    {"output", Json::array({{{"type", "message"},
                                             {"role", "assistant"},
                                             {"content", Json::array({{{"type", "output_text"},
                                                                       {"text", "ok"}}})}}})},
                    {"usage",
                     {{"input_tokens", total},
                      {"input_tokens_details", {{"cached_tokens", read}}},
                      {"output_tokens", 1},
                      {"total_tokens", total + 1}}}};
    } else {
        response = {
            {"id", id},
            {"object", "chat.completion"},
            {"model", r.model},
            {"choices", Json::array({{{"index", 0},
                                      {"message", {{"role", "assistant"}, {"content", "ok"}}},
                                      {"finish_reason", "length"}}})},
            {"usage",
             {{"prompt_tokens", total},
              {"completion_tokens", 1},
              {"total_tokens", total + 1},
              {"prompt_tokens_details", {{"cached_tokens", read}}}}}};
    }
    if (Json::parse(request.body).value("stream", false)) {
        return {200,
                responses ? responses_stream(response) : chat_stream(response),
                {},
                "text/event-stream"};
    }
    return {200, response.dump(), {}};
}

} // namespace cachewise::test
