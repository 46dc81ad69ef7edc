// The conversation model: sessions that start, grow turn by turn and end;
// what the model replies, which tools it calls, what they return, and the
// usage a request reports. The formats are written by exchange.cpp,
// openai.cpp and claude_code.cpp.

#include "gen/generator_impl.hpp"
#include "gen/json_out.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <utility>
#include <vector>

namespace cachewise::gen::detail {

void
Generator::run(std::FILE* out, std::uint64_t target, std::size_t concurrent)
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

void
Generator::turn(Session& s)
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

void
Generator::run_split(const std::string& dir, std::uint64_t target)
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

void
Generator::flush()
{
    if (!m_buf.empty() && std::fwrite(m_buf.data(), 1, m_buf.size(), m_file) != m_buf.size()) {
        throw std::runtime_error(fmt::format("write failed: {}", std::strerror(errno)));
    }
    m_written += m_buf.size();
    m_buf.clear();
}

void
Generator::start_session(Session& s)
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
    task.text = fmt::format("{} {}\n\nPlease {} `{}` in src/{}.{}; {}", sentence(r), sentence(r),
                            r.pick(k_verbs), ident(r), ident(r), r.pick(k_exts), r.pick(k_unicode));
    if (r.chance(0.5)) {
        task.text += "\n\n```\n" + m_pool.text(r, r.log_uniform(100, 2000), false) + "\n```";
    }
    s.pending.push_back(std::move(task));
}

void
Generator::put_todos(std::string& j)
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

std::string
Generator::tool_input(const Tool& tool, const Session& s)
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
Generator::reply(Session& s, bool final)
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
Generator::results(const std::vector<Block>& assistant)
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

Generator::UsageNumbers
Generator::usage(Session& s, std::int64_t prompt_tokens, std::size_t reply_bytes,
                 std::int64_t stable)
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
Generator::put_record_head(std::string_view id_prefix, int id_length, const Session& s,
                           std::int64_t output)
{
    advance_clock();
    const double first_token = m_clock + 0.5 + m_rng.unit() * 2.5;
    const double ended = first_token + static_cast<double>(output) / (40.0 + m_rng.unit() * 60.0);
    m_buf += "{\"id\":\"";
    m_buf += base62_id(m_rng, id_prefix, id_length);
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
}

void
Generator::put_messages_tail(const std::string& history, const std::string& last)
{
    m_buf += history;
    if (!history.empty()) {
        m_buf += ',';
    }
    m_buf += last;
}

void
Generator::put_usage(const UsageNumbers& u)
{
    put_fmt(m_buf,
            "{{\"input_tokens\":{},\"cache_creation_input_tokens\":{},\"cache_read_input_"
            "tokens\":{},"
            "\"cache_creation\":{{\"ephemeral_5m_input_tokens\":{},\"ephemeral_1h_input_"
            "tokens\":0}},"
            "\"output_tokens\":{},\"service_tier\":\"standard\"}}",
            u.input, u.write, u.read, u.write, u.output);
}

void
Generator::put_block(std::string& o, const Block& b)
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

std::string
Generator::message(std::string_view role, const std::vector<Block>& blocks)
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

std::size_t
Generator::reply_bytes(const std::vector<Block>& blocks)
{
    std::size_t n = 0;
    for (const auto& b : blocks) {
        n += b.text.size() + b.input.size();
    }
    return n;
}

} // namespace cachewise::gen::detail

namespace cachewise::gen {

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
    detail::Generator gen(options.seed, options.format);
    gen.run(out, options.target_bytes, options.sessions);
    return gen.stats();
}

GenStats
generate_split(const std::string& dir, const GenOptions& options)
{
    detail::Generator gen(options.seed, options.format);
    gen.run_split(dir, options.target_bytes);
    return gen.stats();
}

} // namespace cachewise::gen
