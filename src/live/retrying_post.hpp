#pragma once

#include "live/api_key.hpp"
#include "live/http_client.hpp"
#include "live/retry.hpp"

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace cachewise::live {

struct Attempts {
    int count = 0;
    std::vector<std::string> retried; // why each retry happened ("HTTP 429, waited 1.0 s")
    std::optional<std::chrono::system_clock::time_point> last_started;
};

// POSTs with the retry policy: 429, 529 and 5xx are tried again after the
// provider's retry-after or a jittered backoff, within the policy's count and
// waiting budget. A call that broke or timed out is not sent again, since it
// may have been billed. Returns a 2xx response; throws Error with
// ExitCode::network naming `what` ("call 2"), the HTTP status and the
// provider's message, the key redacted.
HttpResponse post_with_retries(HttpClient& client, const HttpRequest& request,
                               const RetryPolicy& policy, const std::optional<ApiKey>& key,
                               const std::string& what, Attempts& attempts);

} // namespace cachewise::live
