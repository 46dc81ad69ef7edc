// Exchange JSONL: one {"id","session",...,"request","response"} record per
// request, the whole history repeated in every record, as proxies log it.

#include "gen/generator_impl.hpp"
#include "gen/json_out.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

namespace cachewise::gen::detail {

void
Generator::exchange_turn(Session& s)
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

    put_record_head("req_011C", 18, s, u.output);
    put_fmt(m_buf, "\",\"max_tokens\":{},\"tools\":", s.max_tokens);
    m_buf += s.tools_json;
    m_buf += ",\"system\":";
    m_buf += s.system_json;
    m_buf += ",\"messages\":[";
    put_messages_tail(s.history, user_cc);
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

} // namespace cachewise::gen::detail
