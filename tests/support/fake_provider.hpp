#pragma once

// A loopback stand-in for the provider APIs probe talks to, for tests only:
// it listens on 127.0.0.1 at an ephemeral port and never contacts anything.
//
// It keeps a real prefix cache rather than canned answers. Anthropic
// (/v1/messages): an entry per breakpoint whose prefix reaches the model's
// minimum, keyed by the prefix's identity, with its TTL (5m or 1h) refreshed
// on reads; a read looks back 20 lookback positions from each breakpoint;
// usage is split into read / 1h write / 5m write / fresh as the provider
// bills it. OpenAI (/v1/chat/completions, /v1/responses): the whole prompt
// is stored after each call and the longest stored prefix of at least 1,024
// tokens is read. Prompts are split into blocks and counted by cachewise's
// own request reader and estimator, so that the test compares cache logic,
// not tokenizers. It answers count_tokens and input_tokens, returns
// `diagnostics.cache_miss_reason` when asked, and can be told to answer the
// next calls with an error status (with retry-after), slowly, or cut short.

#include "model/request.hpp"
#include "ruleset/rules.hpp"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace cachewise::test {

struct Fault {
    enum class Kind { status, slow, truncated } kind = Kind::status;
    int status = 500;
    std::string retry_after; // header value; empty: none
    int delay_ms = 0;        // slow: before answering
    bool echo_key = false;   // status: the error message quotes the key it was sent
};

struct SeenRequest {
    std::string path;
    std::map<std::string, std::string> headers; // lower-case names
    std::string body;
};

class FakeProvider {
public:
    explicit FakeProvider(const ruleset::Rules& rules);
    ~FakeProvider();
    FakeProvider(const FakeProvider&) = delete;
    FakeProvider& operator=(const FakeProvider&) = delete;

    [[nodiscard]] int port() const { return m_port; }
    [[nodiscard]] std::string base_url() const;

    // The next calls (any path) meet these, one fault per call, in order.
    void push_fault(Fault fault);
    // Moves the cache's clock forward (TTL tests without waiting).
    void advance_clock(double seconds);
    // Tokens the provider counts beyond cachewise's estimate of each
    // prompt (a tokenizer that splits finer), reported as fresh input on
    // /v1/messages.
    void add_uncounted_tokens(std::int64_t tokens) { m_uncounted = tokens; }
    [[nodiscard]] std::vector<SeenRequest> seen() const;
    [[nodiscard]] std::size_t calls(const std::string& path) const;
    [[nodiscard]] std::size_t connections() const { return m_connections; }

private:
    struct Entry {
        double expires = 0;
    };
    struct Previous {
        std::string model;
        std::vector<std::string> tools; // block identities, level by level
        std::vector<std::string> system;
        std::vector<std::string> messages;
    };
    struct Reply {
        int status = 200;
        std::string body;
        std::vector<std::pair<std::string, std::string>> headers;
        std::string content_type = "application/json";
    };

    void accept_loop();
    void serve(int fd);
    bool read_request(int fd, std::string& buffer, SeenRequest& request);
    static Reply fault_reply(const Fault& fault, const SeenRequest& request);
    // Anthropic's usage split for a request, updating the entries.
    struct Usage {
        std::int64_t read = 0;
        std::int64_t write_5m = 0;
        std::int64_t write_1h = 0;
        std::int64_t fresh = 0;
    };
    Usage cache_usage(const model::Request& r);
    // diagnostics.cache_miss_reason against the message a request names.
    std::string miss_reason(const std::string& previous_id, const Previous& mine) const;
    Reply handle(const SeenRequest& request);
    Reply messages(const SeenRequest& request, bool count_only);
    Reply openai(const SeenRequest& request, bool responses, bool count_only);
    [[nodiscard]] double now() const;

    const ruleset::Rules& m_rules;
    int m_listen = -1;
    int m_port = 0;
    std::atomic<bool> m_stop{false};
    std::atomic<std::size_t> m_connections{0};
    std::thread m_acceptor;
    std::vector<std::thread> m_workers;
    mutable std::mutex m_mutex; // everything below
    std::deque<Fault> m_faults;
    std::vector<SeenRequest> m_seen;
    std::map<std::string, Entry> m_entries;     // prefix identity -> entry
    std::map<std::string, Previous> m_messages; // response id -> the request's blocks
    double m_clock_offset = 0;
    std::int64_t m_uncounted = 0;
    int m_next_id = 1;
    std::chrono::steady_clock::time_point m_start = std::chrono::steady_clock::now();
};

} // namespace cachewise::test
