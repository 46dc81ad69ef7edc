// OpenAI Chat Completions exchange records: a system message, tools as
// functions, assistant tool_calls answered by role "tool" messages, usage with
// prompt_tokens_details.cached_tokens.

#include "gen/generator_impl.hpp"
#include "gen/json_out.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

namespace cachewise::gen::detail {

void
Generator::openai_session(Session& s, double m)
{
    s.model = m < 0.5 ? "gpt-4.1-2025-04-14" : m < 0.85 ? "gpt-5-2025-08-07" : "gpt-4o-2024-08-06";
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

std::string
Generator::openai_user(const std::vector<Block>& blocks)
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

std::string
Generator::openai_assistant(const std::vector<Block>& blocks)
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
Generator::openai_turn(Session& s)
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
    put_record_head("chatcmpl-", 24, s, output);
    put_fmt(m_buf, "\",\"max_completion_tokens\":{},\"tools\":", s.max_tokens);
    m_buf += s.openai_tools;
    m_buf += ",\"messages\":[";
    m_buf += s.openai_system;
    m_buf += ',';
    put_messages_tail(s.openai_history, user);
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

} // namespace cachewise::gen::detail
