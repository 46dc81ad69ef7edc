#include "live/retrying_post.hpp"

#include "live/endpoint.hpp"
#include "util/error.hpp"

#include <fmt/format.h>

#include <random>
#include <thread>

namespace cachewise::live {

HttpResponse
post_with_retries(HttpClient& client, const HttpRequest& request, const RetryPolicy& policy,
                  const std::optional<ApiKey>& key, const std::string& what, Attempts& attempts)
{
    std::mt19937_64 rng(std::random_device{}());
    std::uniform_real_distribution<double> jitter(0.0, 1.0);
    std::chrono::milliseconds waited{0};
    for (int attempt = 1;; ++attempt) {
        attempts.count = attempt;
        attempts.last_started = std::chrono::system_clock::now();
        auto result = client.post(request);
        if (!result) {
            throw Error(fmt::format("{}: {}", what, redact(result.error().message, key)),
                        ExitCode::network);
        }
        const long status = result->status;
        if (status >= 200 && status < 300) {
            return std::move(result.value());
        }
        const std::string message = redact(provider_error_message(result->body), key);
        if (!retryable_status(status) || attempt > policy.max_retries) {
            throw Error(
                fmt::format("{}: HTTP {} from {}{}: {}", what, status, origin_of(request.url),
                            attempt > 1 ? fmt::format(" after {} tries", attempt) : "", message),
                ExitCode::network);
        }
        const double now =
            std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
                .count();
        std::optional<std::chrono::milliseconds> after;
        if (const auto* h = result->header("retry-after")) {
            after = parse_retry_after(*h, now);
        }
        const auto delay = backoff_delay(attempt, policy, after, jitter(rng));
        if (waited + delay > policy.max_total_wait) {
            throw Error(
                fmt::format("{}: HTTP {} from {}: {}; a retry would wait {:.1f} s, beyond the "
                            "{:.0f} s allowed",
                            what, status, origin_of(request.url), message,
                            static_cast<double>(delay.count()) / 1000,
                            static_cast<double>(policy.max_total_wait.count()) / 1000),
                ExitCode::network);
        }
        attempts.retried.push_back(fmt::format("HTTP {}{}, waited {:.1f} s", status,
                                               after ? " with retry-after" : "",
                                               static_cast<double>(delay.count()) / 1000));
        waited += delay;
        std::this_thread::sleep_for(delay);
    }
}

} // namespace cachewise::live
