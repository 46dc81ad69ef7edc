// Claude Code transcript lines: one line per content block, chained by
// parentUuid, every line of a response repeating its requestId and usage,
// with file-history-snapshot lines in between.

#include "gen/generator_impl.hpp"
#include "gen/json_out.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

namespace cachewise::gen::detail {

void
Generator::cc_head(const Session& s)
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
Generator::cc_tail(Session& s, const std::string& uuid_now)
{
    m_buf += ",\"uuid\":\"";
    m_buf += uuid_now;
    m_buf += "\",\"timestamp\":";
    put_time(m_buf, m_clock);
    s.last_uuid = uuid_now;
    ++m_lines;
}

void
Generator::cc_snapshot(Session& s, const std::string& message_id, bool update)
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
        put_str(m_buf, fmt::format("{}/src/{}/{}.{}", s.cwd, ident(r), ident(r), r.pick(k_exts)));
        put_fmt(m_buf,
                ":{{\"backupFileName\":\"{:016x}@v{}\",\"version\":{},\"backupTime\":", r.next(),
                i % 7 + 1, i % 7 + 1);
        put_time(m_buf, m_clock - r.unit() * 3600);
        m_buf += '}';
    }
    m_buf += "},\"timestamp\":";
    put_time(m_buf, m_clock);
    m_buf += update ? "},\"isSnapshotUpdate\":true}\n" : "},\"isSnapshotUpdate\":false}\n";
    ++m_lines;
}

void
Generator::cc_user_line(Session& s, const Block& b, std::string id)
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
            put_fmt(m_buf, ",\"numLines\":{},\"startLine\":1,\"totalLines\":{}}}}}", lines, lines);
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
Generator::claude_code_turn(Session& s)
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

} // namespace cachewise::gen::detail
