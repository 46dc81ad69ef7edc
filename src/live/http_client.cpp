#include "live/http_client.hpp"

#include "live/curl_library.hpp"
#include "util/enum_names.hpp"

#include <curl/curl.h>
#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace cachewise::live {

namespace {

// libcurl's functions, once post() has loaded it (every caller below runs
// after a successful curl_library()).
const CurlLibrary&
curl()
{
    return **curl_library();
}

// The body as it arrives, and when the first token marker was seen in it.
struct BodySink {
    std::string* body = nullptr;
    const std::string* marker = nullptr;
    std::chrono::steady_clock::time_point start;
    std::optional<double>* seen = nullptr;
};

std::size_t
on_body(char* data, std::size_t size, std::size_t count, void* user)
{
    auto& sink = *static_cast<BodySink*>(user);
    const std::size_t before = sink.body->size();
    sink.body->append(data, size * count);
    if (!sink.seen->has_value() && !sink.marker->empty()) {
        // Look from just before the new bytes: a marker may straddle two chunks.
        const std::size_t from = before > sink.marker->size() ? before - sink.marker->size() : 0;
        if (sink.body->find(*sink.marker, from) != std::string::npos) {
            *sink.seen =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - sink.start)
                    .count();
        }
    }
    return size * count;
}

// Collects the headers of the last response (a 100 Continue or a proxy's
// CONNECT answer comes first and is dropped at the next status line).
std::size_t
on_header(char* data, std::size_t size, std::size_t count, void* user)
{
    auto& headers = *static_cast<std::map<std::string, std::string>*>(user);
    const std::string_view line(data, size * count);
    if (line.rfind("HTTP/", 0) == 0) {
        headers.clear();
        return size * count;
    }
    const auto colon = line.find(':');
    if (colon == std::string_view::npos) {
        return size * count;
    }
    std::string name(line.substr(0, colon));
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    std::string_view value = line.substr(colon + 1);
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) {
        value.remove_prefix(1);
    }
    while (!value.empty() &&
           (value.back() == '\r' || value.back() == '\n' || value.back() == ' ')) {
        value.remove_suffix(1);
    }
    headers[name] = std::string(value);
    return size * count;
}

HttpError
error_in_words(CURLcode code, const std::string& origin, const char* detail,
               const HttpTimeouts& timeouts)
{
    const std::string extra =
        detail != nullptr && *detail != '\0' ? fmt::format(" ({})", detail) : std::string();
    switch (code) {
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
        return {HttpError::Kind::dns,
                fmt::format("could not resolve the host of {} (DNS){}", origin, extra)};
    case CURLE_COULDNT_CONNECT:
        return {HttpError::Kind::connect,
                fmt::format("could not connect to {}: refused or unreachable{}", origin, extra)};
    case CURLE_OPERATION_TIMEDOUT:
        return {HttpError::Kind::timeout,
                fmt::format("{} did not answer in time (connect timeout {} s, call timeout {} s){}",
                            origin, static_cast<double>(timeouts.connect.count()) / 1000,
                            static_cast<double>(timeouts.total.count()) / 1000, extra)};
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CACERT_BADFILE:
        return {HttpError::Kind::tls,
                fmt::format("TLS with {} failed: {}{}", origin, curl().easy_strerror(code), extra)};
    case CURLE_PARTIAL_FILE:
        return {HttpError::Kind::truncated,
                fmt::format("{} closed the connection before the whole response arrived{}", origin,
                            extra)};
    case CURLE_GOT_NOTHING:
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
        return {HttpError::Kind::truncated, fmt::format("the connection to {} broke: {}{}", origin,
                                                        curl().easy_strerror(code), extra)};
    default:
        return {HttpError::Kind::other, fmt::format("request to {} failed: {}{}", origin,
                                                    curl().easy_strerror(code), extra)};
    }
}

} // namespace

constexpr auto k_kind_names =
    util::names_of<HttpError::Kind>({"dns", "connect", "tls", "timeout", "truncated", "other"});

std::string_view
to_string(HttpError::Kind kind)
{
    return k_kind_names[kind];
}

const std::string*
HttpResponse::header(const std::string& lower_name) const
{
    const auto it = headers.find(lower_name);
    return it == headers.end() ? nullptr : &it->second;
}

std::string
origin_of(const std::string& url)
{
    const auto scheme_end = url.find("://");
    const std::size_t host_begin = scheme_end == std::string::npos ? 0 : scheme_end + 3;
    const auto host_end = url.find_first_of("/?#", host_begin);
    return url.substr(0, host_end == std::string::npos ? url.size() : host_end);
}

struct HttpClient::Handle {
    CURL* curl = nullptr;
    ~Handle()
    {
        if (curl != nullptr) {
            live::curl().easy_cleanup(curl);
        }
    }
};

// libcurl is loaded and started by the first post(), not by the client: lint
// and chain make a client in case a count must be pinned, and most runs never
// send anything (start-up time, see live/curl_library.hpp).
HttpClient::HttpClient(HttpTimeouts timeouts) : m_timeouts(timeouts) {}

HttpClient::~HttpClient() = default;

HttpClient::Handle&
HttpClient::handle_for(const std::string& url)
{
    auto& slot = m_handles[origin_of(url)];
    if (!slot) {
        slot = std::make_unique<Handle>();
        slot->curl = curl().easy_init();
    }
    return *slot;
}

Expected<HttpResponse, HttpError>
HttpClient::post(const HttpRequest& request)
{
    if (const auto library = curl_library(); !library) {
        return unexpected(HttpError{HttpError::Kind::other, library.error()});
    }
    Handle& h = handle_for(request.url);
    const std::string origin = origin_of(request.url);
    if (h.curl == nullptr) {
        return unexpected(HttpError{HttpError::Kind::other, "libcurl could not start a handle"});
    }
    // Reset drops the previous call's options but keeps the open connection.
    curl().easy_reset(h.curl);
    HttpResponse response;
    char detail[CURL_ERROR_SIZE] = {};
    curl_slist* headers = nullptr;
    for (const auto& [name, value] : request.headers) {
        headers = curl().slist_append(headers, fmt::format("{}: {}", name, value).c_str());
    }
    headers = curl().slist_append(headers, "Expect:"); // no 100-continue round trip
    curl().easy_setopt(h.curl, CURLOPT_URL, request.url.c_str());
    curl().easy_setopt(h.curl, CURLOPT_POST, 1L);
    curl().easy_setopt(h.curl, CURLOPT_POSTFIELDS, request.body.data());
    curl().easy_setopt(h.curl, CURLOPT_POSTFIELDSIZE_LARGE,
                       static_cast<curl_off_t>(request.body.size()));
    curl().easy_setopt(h.curl, CURLOPT_HTTPHEADER, headers);
    curl().easy_setopt(h.curl, CURLOPT_WRITEFUNCTION, on_body);
    BodySink sink{&response.body, &request.first_token_marker, std::chrono::steady_clock::now(),
                  &response.first_token_seconds};
    curl().easy_setopt(h.curl, CURLOPT_WRITEDATA, &sink);
    curl().easy_setopt(h.curl, CURLOPT_HEADERFUNCTION, on_header);
    curl().easy_setopt(h.curl, CURLOPT_HEADERDATA, &response.headers);
    curl().easy_setopt(h.curl, CURLOPT_ERRORBUFFER, detail);
    curl().easy_setopt(h.curl, CURLOPT_NOSIGNAL, 1L);
    curl().easy_setopt(h.curl, CURLOPT_CONNECTTIMEOUT_MS,
                       static_cast<long>(m_timeouts.connect.count()));
    curl().easy_setopt(h.curl, CURLOPT_TIMEOUT_MS, static_cast<long>(m_timeouts.total.count()));
    curl().easy_setopt(h.curl, CURLOPT_USERAGENT, "cachewise-probe");
    curl().easy_setopt(h.curl, CURLOPT_ACCEPT_ENCODING, ""); // whatever libcurl can decode

    const CURLcode code = curl().easy_perform(h.curl);
    curl().slist_free_all(headers);
    if (code != CURLE_OK) {
        return unexpected(error_in_words(code, origin, detail, m_timeouts));
    }
    long connects = 0;
    curl().easy_getinfo(h.curl, CURLINFO_NUM_CONNECTS, &connects);
    m_connections += connects;
    curl().easy_getinfo(h.curl, CURLINFO_RESPONSE_CODE, &response.status);
    curl_off_t ttfb = 0;
    curl().easy_getinfo(h.curl, CURLINFO_STARTTRANSFER_TIME_T, &ttfb);
    response.ttfb_seconds = static_cast<double>(ttfb) / 1e6;
    // On the clock the first token is timed by, so that it never exceeds the whole.
    response.total_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - sink.start).count();
    return response;
}

} // namespace cachewise::live
