#pragma once

#include "util/expected.hpp"

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace cachewise::live {

struct HttpRequest {
    std::string url;
    std::vector<std::pair<std::string, std::string>> headers;
    std::string body; // sent with POST
    // Streams: the first body byte sequence that means "a token arrived"
    // (Anthropic "content_block_delta"); empty: not timed.
    std::string first_token_marker;
};

struct HttpResponse {
    long status = 0;
    std::map<std::string, std::string> headers; // names in lower case, last value wins
    std::string body;
    double ttfb_seconds = 0;                   // request sent to first response byte
    std::optional<double> first_token_seconds; // to the first_token_marker, when seen
    double total_seconds = 0;                  // the whole exchange

    [[nodiscard]] const std::string* header(const std::string& lower_name) const;
};

// A failure below HTTP: no status line, or not the whole response.
struct HttpError {
    enum class Kind { dns, connect, tls, timeout, truncated, other } kind = Kind::other;
    std::string message; // in words, naming the host; never a header value
};
std::string_view to_string(HttpError::Kind kind);

struct HttpTimeouts {
    std::chrono::milliseconds connect{10'000};
    std::chrono::milliseconds total{120'000};
};

// A sequential HTTP client over libcurl: one easy handle per scheme, host and
// port, kept between calls so that its connection stays alive. The proxy
// variables libcurl knows (https_proxy, HTTPS_PROXY, http_proxy, NO_PROXY,
// ALL_PROXY) apply. Nothing here logs or prints: header values may hold keys.
class HttpClient {
public:
    explicit HttpClient(HttpTimeouts timeouts = {});
    ~HttpClient();
    HttpClient(const HttpClient&) = delete;
    HttpClient& operator=(const HttpClient&) = delete;

    Expected<HttpResponse, HttpError> post(const HttpRequest& request);

    // Connections opened so far (a reused one is not counted again).
    [[nodiscard]] long connections_opened() const { return m_connections; }

private:
    struct Handle;
    Handle& handle_for(const std::string& url);

    HttpTimeouts m_timeouts;
    std::map<std::string, std::unique_ptr<Handle>> m_handles;
    long m_connections = 0;
};

// "https://api.anthropic.com:443" of a URL: the key of its handle, and the
// host an error names.
std::string origin_of(const std::string& url);

} // namespace cachewise::live
