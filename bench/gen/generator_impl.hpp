#pragma once

// The Generator class behind generate() and generate_split(): sessions that
// grow turn by turn, written as exchange records (exchange.cpp), OpenAI Chat
// Completions records (openai.cpp) or Claude Code transcript lines
// (claude_code.cpp). Internal to cachewise_gen_log.

#include "gen/generator.hpp"
#include "gen/rng.hpp"
#include "gen/text.hpp"
#include "gen/tools.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace cachewise::gen::detail {

// ---------------------------------------------------------------------------
// Conversation content, shared by the output formats.

struct Block {
    enum class Kind { text, tool_use, tool_result } kind = Kind::text;
    std::string text;  // text, or the tool result's content
    std::string id;    // tool_use id, or the tool_use_id answered
    std::string name;  // tool name
    std::string input; // tool_use input, rendered JSON
    const Tool* tool = nullptr;
    bool is_error = false;
    bool content_blocks = false; // tool_result content as [{"type":"text",...}]
};

struct Session {
    bool active = false;
    std::string id;
    std::string model;
    int max_tokens = 32000;
    std::string project;
    std::vector<const Tool*> tools;
    std::string tools_json;  // "[...]"
    std::string system_json; // "[...]"
    std::size_t system_bytes = 0;
    int turn = 0;
    int turns = 0;
    std::vector<Block> pending;     // the user message the next request ends with
    std::int64_t cached_tokens = 0; // prompt tokens the previous request left in the cache

    // exchange
    std::string history; // rendered messages, comma-separated

    // openai
    std::string system_text;    // the system prompt, unrendered
    std::string openai_tools;   // "[...]" of {"type":"function","function":{...}}
    std::string openai_system;  // {"role":"system",...}
    std::string openai_history; // rendered messages after the system one, comma-separated

    // claude-code
    std::string cwd;
    std::string branch;
    std::string version;
    std::string last_uuid; // parentUuid of the next line
    std::vector<std::string> user_uuids;
    std::size_t cc_history_bytes = 0;
};

class Generator {
public:
    Generator(std::uint64_t seed, Format format)
        : m_rng(seed), m_claude_code(format == Format::claude_code),
          m_openai(format == Format::openai), m_pool(m_rng), m_tools(make_tool_catalog(m_rng))
    {
        for (int i = 0; i < 3; ++i) {
            m_system_bases.push_back(
                prose(m_rng, static_cast<std::size_t>(m_rng.range(5200, 7800))));
        }
    }

    void run(std::FILE* out, std::uint64_t target, std::size_t concurrent);

    // One turn of a session in the chosen format, flushing when the buffer is full.
    void turn(Session& s);

    // One file per session, as Claude Code keeps its transcripts:
    // <dir>/<session id>.jsonl, one session at a time.
    void run_split(const std::string& dir, std::uint64_t target);

    [[nodiscard]] GenStats stats() const
    {
        return GenStats{m_written, m_lines, m_requests, m_sessions_started};
    }

private:
    static constexpr std::size_t k_flush_at = std::size_t{8} << 20;

    // ----- the conversation (generator.cpp) -----

    void flush();

    void start_session(Session& s);

    // TodoWrite's "todos": 2-7 items, the first one in progress.
    void put_todos(std::string& j);

    // The tool_use input for `tool`, rendered JSON; paths under the session's cwd.
    std::string tool_input(const Tool& tool, const Session& s);

    std::vector<Block> reply(Session& s, bool final);

    std::vector<Block> results(const std::vector<Block>& assistant);

    // Prompt tokens a request would have, from its rendered size.
    static std::int64_t tokens_of(std::size_t bytes)
    {
        return static_cast<std::int64_t>(bytes / 3.6);
    }

    struct UsageNumbers {
        std::int64_t input = 0;
        std::int64_t write = 0;
        std::int64_t read = 0;
        std::int64_t output = 0;
    };

    UsageNumbers usage(Session& s, std::int64_t prompt_tokens, std::size_t reply_bytes,
                       std::int64_t stable);

    void put_usage(const UsageNumbers& u);

    static void put_block(std::string& o, const Block& b);

    static std::string message(std::string_view role, const std::vector<Block>& blocks);

    static std::size_t reply_bytes(const std::vector<Block>& blocks);

    void advance_clock() { m_clock += 0.2 + m_rng.unit() * 6.0; }

    // An exchange record up to its request's model, on a clock moved on to
    // its start: {"id":"<prefix, then id_length random characters>",
    // "session":…, the three times (the reply streams `output` tokens),
    // "request":{"model":"<model>  (both exchange formats).
    void put_record_head(std::string_view id_prefix, int id_length, const Session& s,
                         std::int64_t output);

    // The messages array's end: the history so far (comma-separated
    // messages, maybe none), then the last message.
    void put_messages_tail(const std::string& history, const std::string& last);

    // ----- exchange JSONL (exchange.cpp) -----

    void exchange_turn(Session& s);

    // ----- OpenAI Chat Completions exchange JSONL (openai.cpp) -----

    // The session's model, tools as functions and system message.
    void openai_session(Session& s, double m);

    // Tool results become "tool" messages, text a "user" message.
    static std::string openai_user(const std::vector<Block>& blocks);

    // One assistant message: its text and tool calls (arguments as a JSON string).
    static std::string openai_assistant(const std::vector<Block>& blocks);

    void openai_turn(Session& s);

    // ----- Claude Code transcripts (claude_code.cpp) -----

    void cc_head(const Session& s);

    void cc_tail(Session& s, const std::string& uuid_now);

    // `message_id`: the user line the snapshot belongs to.
    void cc_snapshot(Session& s, const std::string& message_id, bool update);

    void cc_user_line(Session& s, const Block& b, std::string id = {});

    void claude_code_turn(Session& s);

    Rng m_rng;
    bool m_claude_code;
    bool m_openai;
    TextPool m_pool;
    std::vector<Tool> m_tools;
    std::vector<std::string> m_system_bases;
    std::vector<Session> m_sessions;
    std::string m_buf;
    std::FILE* m_file = nullptr;
    double m_clock = 1748854800.0; // 2025-06-02T09:00:00Z
    std::uint64_t m_written = 0;
    std::uint64_t m_lines = 0;
    std::uint64_t m_requests = 0;
    std::uint64_t m_sessions_started = 0;
};

} // namespace cachewise::gen::detail
