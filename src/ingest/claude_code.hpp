#pragma once

#include "ingest/anthropic_request.hpp"
#include "model/request.hpp"
#include "util/hash.hpp"

#include <simdjson.h>

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace cachewise::ingest {

// Reads one Claude Code transcript (<project>/<session>.jsonl or
// <session>/subagents/agent-*.jsonl). A transcript has one line per content
// block, not one per request: the request behind a response is the chain of
// lines reached through parentUuid, grouped into alternating messages. Every
// line of a response repeats that response's usage, so each requestId is
// one request, counted once. The system prompt and the tools are not logged;
// they become one `unlogged` segment whose tokens are what the reported total
// leaves for them.
class ClaudeCodeReader {
public:
    ClaudeCodeReader(AnthropicRequestParser& parser, const ruleset::Rules& rules, std::string file);
    ~ClaudeCodeReader();
    ClaudeCodeReader(const ClaudeCodeReader&) = delete;
    ClaudeCodeReader& operator=(const ClaudeCodeReader&) = delete;

    enum class LineKind { message, bookkeeping, blank };

    // One line, padded for simdjson. Lines that are not messages (summaries,
    // file-history snapshots, progress) are skipped without parsing unless
    // they link messages together. Throws FieldError.
    LineKind line(od::parser& parser, std::string_view text, std::uint64_t number);

    // Builds this file's requests in order of first appearance. A request id
    // already in `seen` (a resumed session repeats its history) is skipped and
    // counted in `duplicates`.
    void finish(const std::function<void(model::Request&&)>& emit,
                std::unordered_set<std::string>& seen, std::uint64_t& duplicates);

    // A subagent call seen in a `progress` line of its parent transcript
    // (Claude Code 2.x streams the subagent's messages there). A billed call:
    // when the subagent's own transcript is absent, it is the only record.
    struct ProgressCall {
        std::string request_id;
        std::string session;
        std::string agent;
        std::string model;
        std::string file;
        std::uint64_t line = 0;
        std::optional<Timestamp> timestamp;
        std::optional<model::Usage> usage;
    };
    // The progress calls of this file, by request id (output counts merged).
    [[nodiscard]] std::vector<ProgressCall> take_progress();
    // A request for a call seen only in progress lines: usage counted, prompt
    // not logged.
    static model::Request progress_request(ProgressCall call);

private:
    struct Entry;
    struct LineFacts;
    // The lines of one response (requestId), in file order.
    struct Response {
        std::string id;
        std::vector<std::size_t> lines;
    };
    // The per-line values kept as an index into m_values.
    enum class Interned { session, agent, model, version, count };
    std::uint32_t intern(std::string_view value, Interned field);
    void entry_member(std::string_view key, od::value v, Entry& e, LineFacts& facts);
    void message(od::value v, Entry& e);
    LineKind keep_line(Entry&& e, LineFacts&& facts);
    std::optional<ProgressCall> progress(od::value data);
    void keep_progress(ProgressCall call);
    void build(const Response& response, model::Request& request);
    std::vector<std::size_t> history(std::size_t at, model::Request& request) const;
    void identify(const Response& response, const std::vector<std::size_t>& chain,
                  model::Request& request) const;
    std::optional<model::Usage> usage_of(const Response& response) const;
    model::Segment hidden_head(const Entry& first) const;
    bool add_messages(const std::vector<std::size_t>& chain, model::Request& request) const;
    void bridge_broken_lines();

    AnthropicRequestParser* m_parser;
    const ruleset::Rules* m_rules;
    std::string m_file;
    std::vector<Entry> m_entries;
    std::unordered_map<Hash128, std::size_t, Hash128Hasher> m_by_uuid; // the last line of each uuid
    std::vector<Response> m_requests;                                  // in order of first line
    std::unordered_map<Hash128, std::uint32_t, Hash128Hasher> m_request_of;
    std::vector<std::string> m_values{std::string()}; // index 0: ""
    std::unordered_map<std::string, std::uint32_t> m_value_index{{std::string(), 0}};
    std::array<std::uint32_t, static_cast<std::size_t>(Interned::count)> m_last_value{};
    std::vector<ProgressCall> m_progress;
    std::unordered_map<std::string, std::size_t> m_progress_of_request;
    // Lines of the chain that did not parse, and the entries whose history
    // is taken across one of them (entry → the broken line).
    std::vector<std::uint64_t> m_broken_lines;
    std::unordered_map<std::size_t, std::uint64_t> m_bridged;
};

// True when a JSON object line looks like a Claude Code transcript line.
bool looks_like_claude_code(std::string_view first_line);

} // namespace cachewise::ingest
