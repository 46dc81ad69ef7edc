// The conversation model of cachewise_gen_log: sessions that grow turn by turn,
// rendered as exchange records, OpenAI Chat Completions records or Claude Code
// transcript lines. See gen_agent_log.cpp for the shape of the output.

#include "gen/generator.hpp"

#include "gen/json_out.hpp"
#include "gen/rng.hpp"
#include "gen/text.hpp"
#include "gen/tools.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <utility>
#include <vector>

namespace cachewise::gen {

namespace {

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

    void
    run(std::FILE* out, std::uint64_t target, std::size_t concurrent)
    {
        m_file = out;
        m_sessions.resize(concurrent);
        m_buf.reserve(k_flush_at + (std::size_t{4} << 20));
        while (m_written + m_buf.size() < target) {
            Session& s = m_sessions[m_rng.index(m_sessions.size())];
            if (!s.active) {
                start_session(s);
            }
            turn(s);
        }
        flush();
    }

    // One turn of a session in the chosen format, flushing when the buffer is full.
    void
    turn(Session& s)
    {
        if (m_claude_code) {
            claude_code_turn(s);
        } else if (m_openai) {
            openai_turn(s);
        } else {
            exchange_turn(s);
        }
        if (m_buf.size() >= k_flush_at) {
            flush();
        }
    }

    // One file per session, as Claude Code keeps its transcripts:
    // <dir>/<session id>.jsonl, one session at a time.
    void
    run_split(const std::string& dir, std::uint64_t target)
    {
        m_sessions.resize(1);
        m_buf.reserve(k_flush_at + (std::size_t{4} << 20));
        Session& s = m_sessions.front();
        while (m_written + m_buf.size() < target) {
            start_session(s);
            const std::string path = fmt::format("{}/{}.jsonl", dir, s.id);
            m_file = std::fopen(path.c_str(), "wb");
            if (m_file == nullptr) {
                throw std::runtime_error(fmt::format("{}: {}", path, std::strerror(errno)));
            }
            while (s.active && m_written + m_buf.size() < target) {
                turn(s);
            }
            flush();
            if (std::fclose(m_file) != 0) {
                m_file = nullptr;
                throw std::runtime_error(fmt::format("{}: {}", path, std::strerror(errno)));
            }
            m_file = nullptr;
        }
    }

    [[nodiscard]] GenStats
    stats() const
    {
        return GenStats{m_written, m_lines, m_requests, m_sessions_started};
    }

private:
    static constexpr std::size_t k_flush_at = std::size_t{8} << 20;

    void
    flush()
    {
        if (!m_buf.empty() && std::fwrite(m_buf.data(), 1, m_buf.size(), m_file) != m_buf.size()) {
            throw std::runtime_error(fmt::format("write failed: {}", std::strerror(errno)));
        }
        m_written += m_buf.size();
        m_buf.clear();
    }

    void
    start_session(Session& s)
    {
        Rng& r = m_rng;
        s = Session{};
        s.active = true;
        ++m_sessions_started;
        s.id = uuid(r);
        const double m = r.unit();
        s.model = m < 0.7    ? "claude-sonnet-4-5-20250929"
                  : m < 0.85 ? "claude-opus-4-1-20250805"
                             : "claude-haiku-4-5-20251001";
        s.max_tokens = m < 0.85 ? 32000 : 8192;
        s.project = std::string(r.pick(k_projects));
        s.turns = static_cast<int>(r.range(20, 80));

        // 4-8 tools in catalog order; sessions often share a tool set.
        const std::size_t n = static_cast<std::size_t>(r.range(4, 8));
        std::vector<std::size_t> chosen(m_tools.size());
        for (std::size_t i = 0; i < chosen.size(); ++i) {
            chosen[i] = i;
        }
        for (std::size_t i = 0; i < n; ++i) {
            std::swap(chosen[i], chosen[i + r.index(chosen.size() - i)]);
        }
        chosen.resize(n);
        std::sort(chosen.begin(), chosen.end());
        s.tools_json = "[";
        for (const auto i : chosen) {
            s.tools.push_back(&m_tools[i]);
            if (s.tools_json.size() > 1) {
                s.tools_json += ',';
            }
            s.tools_json += m_tools[i].json;
        }
        s.tools_json += ']';

        // System: an identity line, a shared body, then this session's environment.
        std::string env = fmt::format("\n\n<env>\nWorking directory: /home/dev/{}\nIs directory a "
                                      "git repo: Yes\nPlatform: linux\n"
                                      "Today's date: 2025-06-{:02}\n</env>\n\ngitStatus: This is "
                                      "the git status at the start of "
                                      "the conversation.\nCurrent branch: {}\n\nStatus:\n",
                                      s.project, r.range(1, 28), ident(r));
        const auto files = r.range(3, 30);
        for (std::int64_t i = 0; i < files; ++i) {
            put_fmt(env, " {} src/{}/{}.{}\n", r.chance(0.7) ? "M" : "??", ident(r), ident(r),
                    r.pick(k_exts));
        }
        env += "\nRecent commits:\n";
        for (int i = 0; i < 5; ++i) {
            put_fmt(env, "{:07x} {}\n", r.below(0x10000000), sentence(r));
        }
        s.system_json = "[{\"type\":\"text\",\"text\":\"You are Claude Code, Anthropic's official "
                        "CLI for Claude.\"},";
        s.system_json += "{\"type\":\"text\",\"text\":";
        s.system_text = m_system_bases[r.index(m_system_bases.size())] + env;
        put_str(s.system_json, s.system_text);
        s.system_json += ",\"cache_control\":{\"type\":\"ephemeral\"}}]";
        s.system_bytes = s.system_json.size();
        if (m_openai) {
            openai_session(s, m);
        }

        s.cwd = "/home/dev/" + s.project;
        s.branch = r.chance(0.5) ? "main" : fmt::format("feature/{}", ident(r));
        s.version = fmt::format("2.0.{}", r.range(1, 30));

        // The task.
        Block task;
        task.text =
            fmt::format("{} {}\n\nPlease {} `{}` in src/{}.{}; {}", sentence(r), sentence(r),
                        r.pick(k_verbs), ident(r), ident(r), r.pick(k_exts), r.pick(k_unicode));
        if (r.chance(0.5)) {
            task.text += "\n\n```\n" + m_pool.text(r, r.log_uniform(100, 2000), false) + "\n```";
        }
        s.pending.push_back(std::move(task));
    }

    // TodoWrite's "todos": 2-7 items, the first one in progress.
    void
    put_todos(std::string& j)
    {
        Rng& r = m_rng;
        j += "\"todos\":[";
        const auto n = r.range(2, 7);
        for (std::int64_t i = 0; i < n; ++i) {
            if (i > 0) {
                j += ',';
            }
            j += "{\"content\":";
            put_str(j, sentence(r));
            j += ",\"status\":";
            put_str(j, i == 0 ? "in_progress" : (r.chance(0.5) ? "pending" : "completed"));
            j += ",\"activeForm\":";
            put_str(j, fmt::format("{}ing the {}", r.pick(k_verbs), r.pick(k_words)));
            j += '}';
        }
        j += ']';
    }

    // The tool_use input for `tool`, rendered JSON; paths under the session's cwd.
    std::string
    tool_input(const Tool& tool, const Session& s)
    {
        Rng& r = m_rng;
        const std::string file = fmt::format("{}/src/{}.{}", s.cwd, ident(r), r.pick(k_exts));
        std::string j = "{";
        switch (tool.kind) {
        case ToolKind::bash:
            j += "\"command\":";
            put_str(j, fmt::format("cd {} && grep -rn \"{}\" src/ | head -{} && cargo test -- "
                                   "--nocapture 2>&1 | tail -n {}",
                                   s.cwd, ident(r), r.range(5, 200), r.range(10, 80)));
            j += ",\"description\":";
            put_str(j, sentence(r));
            put_fmt(j, ",\"timeout\":{}", r.range(1, 10) * 30000);
            break;
        case ToolKind::read:
            j += "\"file_path\":";
            put_str(j, file);
            if (r.chance(0.4)) {
                put_fmt(j, ",\"offset\":{},\"limit\":{}", r.range(1, 2000), r.range(50, 400));
            }
            break;
        case ToolKind::edit:
            j += "\"file_path\":";
            put_str(j, file);
            j += ",\"old_string\":";
            put_str(j, m_pool.text(r, r.log_uniform(40, 1500), false));
            j += ",\"new_string\":";
            put_str(j, m_pool.text(r, r.log_uniform(40, 1500), false));
            if (r.chance(0.2)) {
                j += ",\"replace_all\":true";
            }
            break;
        case ToolKind::write:
            j += "\"file_path\":";
            put_str(j, file);
            j += ",\"content\":";
            put_str(j, m_pool.text(r, r.log_uniform(200, 4000), false));
            break;
        case ToolKind::grep:
            j += "\"pattern\":";
            put_str(j, fmt::format("fn\\s+{}\\(|\"{}\"", ident(r), r.pick(k_words)));
            j += ",\"path\":";
            put_str(j, s.cwd);
            j += R"(,"output_mode":"content","-n":true)";
            put_fmt(j, ",\"head_limit\":{}", r.range(10, 200));
            break;
        case ToolKind::glob:
            j += "\"pattern\":";
            put_str(j, fmt::format("**/*{}*.{}", r.pick(k_words), r.pick(k_exts)));
            break;
        case ToolKind::todo:
            put_todos(j);
            break;
        case ToolKind::web_fetch:
            j += "\"url\":";
            put_str(j, fmt::format("https://docs.example.com/{}/{}?q={}&page={}", r.pick(k_words),
                                   ident(r), r.pick(k_unicode), r.range(1, 9)));
            j += ",\"prompt\":";
            put_str(j, sentence(r));
            break;
        case ToolKind::task:
            j += "\"description\":";
            put_str(j, fmt::format("{} {}", r.pick(k_verbs), r.pick(k_words)));
            j += ",\"prompt\":";
            put_str(j, prose(r, r.log_uniform(200, 1500)));
            j += R"(,"subagent_type":"general-purpose")";
            break;
        case ToolKind::ls:
            j += "\"path\":";
            put_str(j, s.cwd);
            j += R"(,"ignore":["node_modules","target",".git"])";
            break;
        }
        j += '}';
        return j;
    }

    std::vector<Block>
    reply(Session& s, bool final)
    {
        Rng& r = m_rng;
        std::vector<Block> blocks;
        Block text;
        text.text = prose(r, r.log_uniform(50, 600));
        blocks.push_back(std::move(text));
        if (final) {
            return blocks;
        }
        const double u = r.unit();
        const int n = u < 0.5 ? 1 : u < 0.75 ? 2 : u < 0.9 ? 3 : 4;
        for (int i = 0; i < n; ++i) {
            Block b;
            b.kind = Block::Kind::tool_use;
            b.tool = s.tools[r.index(s.tools.size())];
            b.id = base62_id(r, "toolu_01", 22);
            b.name = b.tool->name;
            b.input = tool_input(*b.tool, s);
            blocks.push_back(std::move(b));
        }
        return blocks;
    }

    std::vector<Block>
    results(const std::vector<Block>& assistant)
    {
        Rng& r = m_rng;
        std::vector<Block> blocks;
        for (const auto& use : assistant) {
            if (use.kind != Block::Kind::tool_use) {
                continue;
            }
            Block b;
            b.kind = Block::Kind::tool_result;
            b.id = use.id;
            b.tool = use.tool;
            b.is_error = r.chance(0.05);
            b.content_blocks = r.chance(0.3);
            b.text = m_pool.text(r, r.log_uniform(300, 8000), use.tool->kind == ToolKind::read);
            blocks.push_back(std::move(b));
        }
        if (r.chance(0.1)) {
            Block note;
            note.text =
                "<system-reminder>\n" + prose(r, r.log_uniform(100, 800)) + "\n</system-reminder>";
            blocks.push_back(std::move(note));
        }
        return blocks;
    }

    // Prompt tokens a request would have, from its rendered size.
    static std::int64_t
    tokens_of(std::size_t bytes)
    {
        return static_cast<std::int64_t>(bytes / 3.6);
    }

    struct UsageNumbers {
        std::int64_t input = 0;
        std::int64_t write = 0;
        std::int64_t read = 0;
        std::int64_t output = 0;
    };

    UsageNumbers
    usage(Session& s, std::int64_t prompt_tokens, std::size_t reply_bytes, std::int64_t stable)
    {
        UsageNumbers u;
        u.input = std::min<std::int64_t>(m_rng.range(1, 8), prompt_tokens);
        if (s.cached_tokens == 0 || m_rng.chance(0.03)) {
            // A cold start or an expired cache; the shared part may survive.
            u.read = s.cached_tokens == 0 ? 0 : std::min(stable, prompt_tokens - u.input);
        } else {
            u.read = std::min(s.cached_tokens, prompt_tokens - u.input);
        }
        u.write = prompt_tokens - u.input - u.read;
        u.output = tokens_of(reply_bytes) + m_rng.range(5, 60);
        s.cached_tokens = u.read + u.write;
        return u;
    }

    void
    put_usage(const UsageNumbers& u)
    {
        put_fmt(m_buf,
                "{{\"input_tokens\":{},\"cache_creation_input_tokens\":{},\"cache_read_input_"
                "tokens\":{},"
                "\"cache_creation\":{{\"ephemeral_5m_input_tokens\":{},\"ephemeral_1h_input_"
                "tokens\":0}},"
                "\"output_tokens\":{},\"service_tier\":\"standard\"}}",
                u.input, u.write, u.read, u.write, u.output);
    }

    static void
    put_block(std::string& o, const Block& b)
    {
        switch (b.kind) {
        case Block::Kind::text:
            o += "{\"type\":\"text\",\"text\":";
            put_str(o, b.text);
            break;
        case Block::Kind::tool_use:
            o += "{\"type\":\"tool_use\",\"id\":\"";
            o += b.id;
            o += "\",\"name\":";
            put_str(o, b.name);
            o += ",\"input\":";
            o += b.input;
            break;
        case Block::Kind::tool_result:
            o += "{\"type\":\"tool_result\",\"tool_use_id\":\"";
            o += b.id;
            o += "\",\"content\":";
            if (b.content_blocks) {
                o += "[{\"type\":\"text\",\"text\":";
                put_str(o, b.text);
                o += "}]";
            } else {
                put_str(o, b.text);
            }
            if (b.is_error) {
                o += ",\"is_error\":true";
            }
            break;
        }
        o += '}';
    }

    static std::string
    message(std::string_view role, const std::vector<Block>& blocks)
    {
        std::string o = "{\"role\":\"";
        o += role;
        o += "\",\"content\":[";
        for (std::size_t i = 0; i < blocks.size(); ++i) {
            if (i > 0) {
                o += ',';
            }
            put_block(o, blocks[i]);
        }
        o += "]}";
        return o;
    }

    static std::size_t
    reply_bytes(const std::vector<Block>& blocks)
    {
        std::size_t n = 0;
        for (const auto& b : blocks) {
            n += b.text.size() + b.input.size();
        }
        return n;
    }

    void
    advance_clock()
    {
        m_clock += 0.2 + m_rng.unit() * 6.0;
    }

    // ----- exchange JSONL -----

    void
    exchange_turn(Session& s)
    {
        Rng& r = m_rng;
        const bool final = s.turn + 1 >= s.turns;
        const auto answer = reply(s, final);

        // The last user message, then the same with cache_control on its last block.
        const std::string user = message("user", s.pending);
        std::string user_cc = user.substr(0, user.size() - 3); // drop "}]}"
        user_cc += ",\"cache_control\":{\"type\":\"ephemeral\"}}]}";

        const std::size_t prompt_bytes =
            s.tools_json.size() + s.system_bytes + s.history.size() + user_cc.size();
        const auto u = usage(s, tokens_of(prompt_bytes), reply_bytes(answer),
                             tokens_of(s.tools_json.size() + s.system_bytes));

        advance_clock();
        const double first_token = m_clock + 0.5 + r.unit() * 2.5;
        const double ended = first_token + static_cast<double>(u.output) / (40.0 + r.unit() * 60.0);

        m_buf += "{\"id\":\"";
        m_buf += base62_id(r, "req_011C", 18);
        m_buf += "\",\"session\":\"";
        m_buf += s.id;
        m_buf += "\",\"started_at\":";
        put_time(m_buf, m_clock);
        m_buf += ",\"first_token_at\":";
        put_time(m_buf, first_token);
        m_buf += ",\"ended_at\":";
        put_time(m_buf, ended);
        m_buf += ",\"request\":{\"model\":\"";
        m_buf += s.model;
        put_fmt(m_buf, "\",\"max_tokens\":{},\"tools\":", s.max_tokens);
        m_buf += s.tools_json;
        m_buf += ",\"system\":";
        m_buf += s.system_json;
        m_buf += ",\"messages\":[";
        m_buf += s.history;
        if (!s.history.empty()) {
            m_buf += ',';
        }
        m_buf += user_cc;
        m_buf += "]},\"response\":{\"id\":\"";
        m_buf += base62_id(r, "msg_01", 22);
        m_buf += "\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"";
        m_buf += s.model;
        m_buf += final ? "\",\"stop_reason\":\"end_turn\",\"usage\":"
                       : "\",\"stop_reason\":\"tool_use\",\"usage\":";
        put_usage(u);
        m_buf += "}}\n";
        ++m_lines;
        ++m_requests;

        // The history grows append-only.
        if (!s.history.empty()) {
            s.history += ',';
        }
        s.history += user;
        s.history += ',';
        s.history += message("assistant", answer);
        ++s.turn;
        if (final) {
            s.active = false;
            return;
        }
        s.pending = results(answer);
    }

    // ----- OpenAI Chat Completions exchange JSONL -----

    // The session's model, tools as functions and system message.
    void
    openai_session(Session& s, double m)
    {
        s.model = m < 0.5    ? "gpt-4.1-2025-04-14"
                  : m < 0.85 ? "gpt-5-2025-08-07"
                             : "gpt-4o-2024-08-06";
        s.openai_tools = "[";
        for (const auto* tool : s.tools) {
            if (s.openai_tools.size() > 1) {
                s.openai_tools += ',';
            }
            // {"name","description","input_schema"} -> function {"name","description","parameters"}
            std::string f = tool->json;
            const std::string_view key = "\"input_schema\":";
            f.replace(f.find(key), key.size(), "\"parameters\":");
            s.openai_tools += "{\"type\":\"function\",\"function\":";
            s.openai_tools += f;
            s.openai_tools += '}';
        }
        s.openai_tools += ']';
        s.openai_system = "{\"role\":\"system\",\"content\":";
        put_str(s.openai_system,
                "You are a coding agent working in the user's repository.\n\n" + s.system_text);
        s.openai_system += '}';
    }

    // Tool results become "tool" messages, text a "user" message.
    static std::string
    openai_user(const std::vector<Block>& blocks)
    {
        std::string o;
        for (const auto& b : blocks) {
            if (!o.empty()) {
                o += ',';
            }
            if (b.kind == Block::Kind::tool_result) {
                o += "{\"role\":\"tool\",\"tool_call_id\":\"";
                o += b.id;
                o += "\",\"content\":";
            } else {
                o += "{\"role\":\"user\",\"content\":";
            }
            put_str(o, b.text);
            o += '}';
        }
        return o;
    }

    // One assistant message: its text and tool calls (arguments as a JSON string).
    static std::string
    openai_assistant(const std::vector<Block>& blocks)
    {
        std::string o = "{\"role\":\"assistant\",\"content\":";
        put_str(o, blocks.front().text);
        std::string calls;
        for (const auto& b : blocks) {
            if (b.kind != Block::Kind::tool_use) {
                continue;
            }
            calls += calls.empty() ? "" : ",";
            calls += "{\"id\":\"call_";
            calls += b.id.substr(8);
            calls += "\",\"type\":\"function\",\"function\":{\"name\":";
            put_str(calls, b.name);
            calls += ",\"arguments\":";
            put_str(calls, b.input);
            calls += "}}";
        }
        if (!calls.empty()) {
            o += ",\"tool_calls\":[" + calls + "]";
        }
        o += '}';
        return o;
    }

    void
    openai_turn(Session& s)
    {
        Rng& r = m_rng;
        const bool final = s.turn + 1 >= s.turns;
        const auto answer = reply(s, final);
        std::vector<Block> pending = s.pending;
        for (auto& b : pending) {
            if (b.kind == Block::Kind::tool_result) {
                b.id = "call_" + b.id.substr(8); // the id of the call it answers
            }
        }
        const std::string user = openai_user(pending);
        const std::size_t prompt_bytes =
            s.openai_tools.size() + s.openai_system.size() + s.openai_history.size() + user.size();
        const std::int64_t prompt = tokens_of(prompt_bytes);
        // OpenAI reads the cache from 1,024 tokens on, in steps of 128.
        const std::int64_t cached = std::min(s.cached_tokens, prompt);
        const std::int64_t read = cached >= 1024 && !r.chance(0.03) ? cached - cached % 128 : 0;
        s.cached_tokens = prompt;
        const std::int64_t output = tokens_of(reply_bytes(answer)) + r.range(5, 60);
        advance_clock();
        const double first_token = m_clock + 0.5 + r.unit() * 2.5;
        const double ended = first_token + static_cast<double>(output) / (40.0 + r.unit() * 60.0);

        m_buf += "{\"id\":\"";
        m_buf += base62_id(r, "chatcmpl-", 24);
        m_buf += "\",\"session\":\"";
        m_buf += s.id;
        m_buf += "\",\"started_at\":";
        put_time(m_buf, m_clock);
        m_buf += ",\"first_token_at\":";
        put_time(m_buf, first_token);
        m_buf += ",\"ended_at\":";
        put_time(m_buf, ended);
        m_buf += ",\"request\":{\"model\":\"";
        m_buf += s.model;
        put_fmt(m_buf, "\",\"max_completion_tokens\":{},\"tools\":", s.max_tokens);
        m_buf += s.openai_tools;
        m_buf += ",\"messages\":[";
        m_buf += s.openai_system;
        m_buf += ',';
        m_buf += s.openai_history;
        if (!s.openai_history.empty()) {
            m_buf += ',';
        }
        m_buf += user;
        m_buf += "]},\"response\":{\"id\":\"";
        m_buf += base62_id(r, "chatcmpl-", 24);
        m_buf += "\",\"object\":\"chat.completion\",\"model\":\"";
        m_buf += s.model;
        put_fmt(m_buf,
                "\",\"choices\":[{{\"index\":0,\"finish_reason\":\"{}\"}}],\"usage\":{{"
                "\"prompt_tokens\":{},\"completion_tokens\":{},\"total_tokens\":{},"
                "\"prompt_tokens_details\":{{\"cached_tokens\":{}}}}}}}}}\n",
                final ? "stop" : "tool_calls", prompt, output, prompt + output, read);
        ++m_lines;
        ++m_requests;

        if (!s.openai_history.empty()) {
            s.openai_history += ',';
        }
        s.openai_history += user;
        s.openai_history += ',';
        s.openai_history += openai_assistant(answer);
        ++s.turn;
        if (final) {
            s.active = false;
            return;
        }
        s.pending = results(answer);
    }

    // ----- Claude Code transcripts -----

    void
    cc_head(const Session& s)
    {
        m_buf += "{\"parentUuid\":";
        if (s.last_uuid.empty()) {
            m_buf += "null";
        } else {
            m_buf += '"';
            m_buf += s.last_uuid;
            m_buf += '"';
        }
        m_buf += ",\"isSidechain\":false,\"userType\":\"external\",\"cwd\":";
        put_str(m_buf, s.cwd);
        m_buf += ",\"sessionId\":\"";
        m_buf += s.id;
        m_buf += "\",\"version\":\"";
        m_buf += s.version;
        m_buf += "\",\"gitBranch\":";
        put_str(m_buf, s.branch);
    }

    void
    cc_tail(Session& s, const std::string& uuid_now)
    {
        m_buf += ",\"uuid\":\"";
        m_buf += uuid_now;
        m_buf += "\",\"timestamp\":";
        put_time(m_buf, m_clock);
        s.last_uuid = uuid_now;
        ++m_lines;
    }

    // `message_id`: the user line the snapshot belongs to.
    void
    cc_snapshot(Session& s, const std::string& message_id, bool update)
    {
        Rng& r = m_rng;
        m_buf += "{\"type\":\"file-history-snapshot\",\"messageId\":\"";
        m_buf += message_id;
        m_buf += "\",\"snapshot\":{\"messageId\":\"";
        m_buf += message_id;
        m_buf += "\",\"trackedFileBackups\":{";
        const auto n = r.chance(0.05) ? r.range(500, 3000) : r.range(0, 10);
        for (std::int64_t i = 0; i < n; ++i) {
            if (i > 0) {
                m_buf += ',';
            }
            put_str(m_buf,
                    fmt::format("{}/src/{}/{}.{}", s.cwd, ident(r), ident(r), r.pick(k_exts)));
            put_fmt(m_buf, ":{{\"backupFileName\":\"{:016x}@v{}\",\"version\":{},\"backupTime\":",
                    r.next(), i % 7 + 1, i % 7 + 1);
            put_time(m_buf, m_clock - r.unit() * 3600);
            m_buf += '}';
        }
        m_buf += "},\"timestamp\":";
        put_time(m_buf, m_clock);
        m_buf += update ? "},\"isSnapshotUpdate\":true}\n" : "},\"isSnapshotUpdate\":false}\n";
        ++m_lines;
    }

    void
    cc_user_line(Session& s, const Block& b, std::string id = {})
    {
        Rng& r = m_rng;
        if (id.empty()) {
            id = uuid(r);
        }
        cc_head(s);
        m_buf += ",\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":";
        if (b.kind == Block::Kind::text && s.last_uuid.empty()) {
            put_str(m_buf, b.text); // the opening prompt: a plain string
        } else {
            m_buf += '[';
            put_block(m_buf, b);
            m_buf += ']';
        }
        m_buf += '}';
        cc_tail(s, id);
        if (b.kind == Block::Kind::tool_result) {
            // Claude Code repeats the tool's output in its own shape.
            if (b.tool != nullptr && b.tool->kind == ToolKind::read) {
                m_buf += ",\"toolUseResult\":{\"type\":\"text\",\"file\":{\"filePath\":";
                put_str(m_buf, fmt::format("{}/src/{}.{}", s.cwd, ident(r), r.pick(k_exts)));
                m_buf += ",\"content\":";
                put_str(m_buf, b.text);
                const auto lines = std::count(b.text.begin(), b.text.end(), '\n') + 1;
                put_fmt(m_buf, ",\"numLines\":{},\"startLine\":1,\"totalLines\":{}}}}}", lines,
                        lines);
            } else {
                m_buf += ",\"toolUseResult\":{\"stdout\":";
                put_str(m_buf, b.text);
                m_buf += ",\"stderr\":\"\",\"interrupted\":false,\"isImage\":false}";
            }
        } else {
            s.user_uuids.push_back(id);
        }
        m_buf += "}\n";
        s.cc_history_bytes += b.text.size() + 64;
    }

    void
    claude_code_turn(Session& s)
    {
        Rng& r = m_rng;
        advance_clock();
        if (s.turn == 0) {
            const std::string prompt_id = uuid(r);
            if (r.chance(0.5)) {
                cc_snapshot(s, prompt_id, false);
            }
            for (std::size_t i = 0; i < s.pending.size(); ++i) {
                cc_user_line(s, s.pending[i], i == 0 ? prompt_id : std::string());
            }
        }
        const bool final = s.turn + 1 >= s.turns;
        const auto answer = reply(s, final);
        // Claude Code's own system prompt and tools: about as large as ours.
        const std::size_t prompt_bytes = s.tools_json.size() + s.system_bytes + s.cc_history_bytes;
        const auto u = usage(s, tokens_of(prompt_bytes), reply_bytes(answer),
                             tokens_of(s.tools_json.size() + s.system_bytes));
        const std::string request_id = base62_id(r, "req_011C", 18);
        const std::string message_id = base62_id(r, "msg_01", 22);
        m_clock += 0.5 + r.unit() * 2.5;
        for (const auto& b : answer) {
            const std::string id = uuid(r);
            cc_head(s);
            m_buf += ",\"message\":{\"id\":\"";
            m_buf += message_id;
            m_buf += "\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"";
            m_buf += s.model;
            m_buf += "\",\"content\":[";
            put_block(m_buf, b);
            m_buf += "],\"stop_reason\":null,\"stop_sequence\":null,\"usage\":";
            put_usage(u);
            m_buf += "},\"requestId\":\"";
            m_buf += request_id;
            m_buf += "\",\"type\":\"assistant\"";
            cc_tail(s, id);
            m_buf += "}\n";
            s.cc_history_bytes += b.text.size() + b.input.size() + 64;
            m_clock += r.unit() * 2;
        }
        ++m_requests;
        ++s.turn;
        if (final) {
            s.active = false;
            return;
        }
        s.pending = results(answer);
        advance_clock();
        for (const auto& b : s.pending) {
            cc_user_line(s, b);
        }
        if (r.chance(0.08) && !s.user_uuids.empty()) {
            cc_snapshot(s, s.user_uuids[r.index(s.user_uuids.size())], true);
        }
    }

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

} // namespace

std::string_view
to_string(Format format)
{
    switch (format) {
    case Format::claude_code:
        return "claude-code";
    case Format::openai:
        return "openai";
    case Format::exchange:
        break;
    }
    return "exchange";
}

GenStats
generate(std::FILE* out, const GenOptions& options)
{
    Generator gen(options.seed, options.format);
    gen.run(out, options.target_bytes, options.sessions);
    return gen.stats();
}

GenStats
generate_split(const std::string& dir, const GenOptions& options)
{
    Generator gen(options.seed, options.format);
    gen.run_split(dir, options.target_bytes);
    return gen.stats();
}

} // namespace cachewise::gen
