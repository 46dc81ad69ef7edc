#include "helpers.hpp"
#include "ingest/claude_code.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>

using namespace cachewise;

namespace {

std::string
user_line(const std::string& uuid, const std::string& parent, const std::string& content,
          const std::string& extra = "")
{
    return fmt::format(
        R"({{"parentUuid":{},"isSidechain":false,"userType":"external","cwd":"/p","sessionId":"sess-1","version":"2.0.1",{}"type":"user","message":{{"role":"user","content":{}}},"uuid":"{}","timestamp":"2026-11-20T10:00:00.000Z"}})",
        parent.empty() ? "null" : "\"" + parent + "\"", extra, content, uuid);
}

std::string
assistant_line(const std::string& uuid, const std::string& parent, const std::string& request,
               const std::string& block, int output, const std::string& extra = "")
{
    return fmt::format(
        R"({{"parentUuid":"{}","isSidechain":false,"userType":"external","cwd":"/p","sessionId":"sess-1","version":"2.0.1",{}"message":{{"model":"claude-sonnet-4-5-20250929","id":"msg_{}","type":"message","role":"assistant","content":[{}],"stop_reason":null,"usage":{{"input_tokens":4,"cache_creation_input_tokens":300,"cache_read_input_tokens":15000,"cache_creation":{{"ephemeral_5m_input_tokens":0,"ephemeral_1h_input_tokens":300}},"output_tokens":{}}}}},"requestId":"{}","type":"assistant","uuid":"{}","timestamp":"2026-11-20T10:00:05.000Z"}})",
        parent, extra, request, block, output, request, uuid);
}

const std::string k_text = R"({"type":"text","text":"Let me look."})";
const std::string k_use1 =
    R"({"type":"tool_use","id":"toolu_1","name":"Read","input":{"file_path":"/p/a"}})";
const std::string k_use2 =
    R"({"type":"tool_use","id":"toolu_2","name":"Read","input":{"file_path":"/p/b"}})";
const std::string k_res1 = R"([{"tool_use_id":"toolu_1","type":"tool_result","content":"A"}])";
const std::string k_res2 = R"([{"tool_use_id":"toolu_2","type":"tool_result","content":"B"}])";

std::string
transcript()
{
    return R"({"type":"summary","summary":"Read two files","leafUuid":"u6"})"
           "\n" +
           user_line("u1", "", R"("read a and b")") + "\n" +
           assistant_line("u2", "u1", "req_A", k_text, 5) + "\n" +
           assistant_line("u3", "u2", "req_A", k_use1, 9) + "\n" +
           assistant_line("u4", "u3", "req_A", k_use2, 40) + "\n" +
           R"({"type":"file-history-snapshot","messageId":"u4","snapshot":{"trackedFileBackups":{}},"isSnapshotUpdate":false})"
           "\n" +
           user_line("u5", "u4", k_res1) + "\n" + user_line("u6", "u5", k_res2) + "\n" +
           assistant_line("u7", "u6", "req_B", R"({"type":"text","text":"Done."})", 3) + "\n";
}

} // namespace

TEST_SUITE("ingest::claude_code")
{
    TEST_CASE("one request per requestId, usage counted once with the final output count")
    {
        const auto loaded =
            test::load_text(transcript(), ingest::InputFormat::auto_detect, "sess-1.jsonl");
        CHECK(loaded.summary.error_count == 0);
        REQUIRE(loaded.requests.size() == 2);
        const auto& a = loaded.requests[0];
        CHECK(a.id == "req_A");
        CHECK(a.stream == "sess-1");
        CHECK(a.usage->output_tokens == 40);
        CHECK(a.usage->total_input() == 15304);
        CHECK(a.usage->origin == model::Usage::Origin::transcript);
        CHECK(a.model == "claude-sonnet-4-5-20250929");
        // unlogged system+tools, then the user message
        REQUIRE(a.segments.size() == 2);
        CHECK(a.segments[0].kind == model::SegmentKind::unlogged);
        CHECK(a.segments[0].token_source == model::TokenSource::inferred);
        CHECK(a.prompt_tokens() == 15304);
        // the bookkeeping lines were skipped, not errors
        CHECK(loaded.summary.skipped == 2);
    }

    TEST_CASE("the history is rebuilt through parentUuid, one message per run of a role")
    {
        const auto loaded =
            test::load_text(transcript(), ingest::InputFormat::auto_detect, "sess-1.jsonl");
        REQUIRE(loaded.requests.size() == 2);
        const auto& b = loaded.requests[1];
        std::vector<std::string> paths;
        for (const auto& s : b.segments) {
            paths.push_back(s.path.str());
        }
        CHECK(paths == std::vector<std::string>{"(tools+system, not logged)", "messages[0].content",
                                                "messages[1].content[0]", "messages[1].content[1]",
                                                "messages[1].content[2]", "messages[2].content[0]",
                                                "messages[2].content[1]"});
        // The three response lines form one assistant message; the two tool results one user
        // message.
        CHECK(b.segments[2].message_start);
        CHECK(!b.segments[3].message_start);
        CHECK(b.segments[5].kind == model::SegmentKind::tool_result);
        CHECK(b.segments[5].lookback_position == b.segments[6].lookback_position);
        CHECK(b.segments[3].lookback_position == b.segments[4].lookback_position);
        // The earlier request's prompt is a prefix of this one.
        const auto& a = loaded.requests[0];
        CHECK(a.segments[1].chain == b.segments[1].chain);
    }

    TEST_CASE("sidechains and subagent files are streams of their own")
    {
        std::string side = user_line("s1", "", R"("subtask")", R"("isSidechain":true,)");
        side.replace(side.find(R"("isSidechain":false,)"), 20, "");
        std::string reply = assistant_line("s2", "s1", "req_S", k_text, 2);
        reply.replace(reply.find(R"("isSidechain":false)"), 19, R"("isSidechain":true)");
        auto loaded = test::load_text(transcript() + side + "\n" + reply + "\n",
                                      ingest::InputFormat::auto_detect, "sess-1.jsonl");
        REQUIRE(loaded.requests.size() == 3);
        CHECK(loaded.requests[2].stream == "sess-1/sidechain-s1");

        std::string agent =
            assistant_line("x2", "x1", "req_X", k_text, 2, R"("agentId":"a1b2c3",)");
        const std::string agent_user = user_line("x1", "", R"("sub")", R"("agentId":"a1b2c3",)");
        loaded = test::load_text(agent_user + "\n" + agent + "\n", ingest::InputFormat::auto_detect,
                                 "agent-a1b2c3.jsonl");
        REQUIRE(loaded.requests.size() == 1);
        CHECK(loaded.requests[0].stream == "sess-1/agent-a1b2c3");
    }

    TEST_CASE("a request id seen in an earlier file (a resumed session) is counted once")
    {
        test::TempFile first(transcript(), "sess-1.jsonl");
        test::TempFile::write(first.dir() + "/sess-2.jsonl", transcript());
        const auto loaded = test::load_paths({first.dir()});
        CHECK(loaded.requests.size() == 2);
        CHECK(loaded.summary.duplicates == 2);
        CHECK(loaded.summary.files == 2);
    }

    TEST_CASE("a broken transcript line is reported and the rest still read")
    {
        std::string text = transcript();
        text.insert(
            text.find(user_line("u5", "u4", k_res1)),
            R"({"parentUuid":"u4","type":"user","uuid":"bad","message":{"role":"user","content":42}})"
            "\n");
        const auto loaded = test::load_text(text, ingest::InputFormat::auto_detect, "sess-1.jsonl");
        CHECK(loaded.summary.error_count == 1);
        CHECK(loaded.summary.errors[0].field == "message.content");
        CHECK(loaded.summary.errors[0].line == 7);
        CHECK(loaded.requests.size() == 2);
    }

    TEST_CASE("a line cut in the middle of a conversation: the history goes on across it")
    {
        std::string text = transcript();
        const std::string cut = user_line("u5", "u4", k_res1);
        text.replace(text.find(cut), cut.size(), cut.substr(0, cut.size() / 2));
        const auto loaded = test::load_text(text, ingest::InputFormat::auto_detect, "sess-1.jsonl");
        REQUIRE(loaded.summary.error_count == 1);
        CHECK(loaded.summary.errors[0].line == 7);
        REQUIRE(loaded.requests.size() == 2);
        // req_B still extends req_A: its history starts at the first prompt,
        // less the tool result of the broken line, and it says so.
        const auto& a = loaded.requests[0];
        const auto& b = loaded.requests[1];
        REQUIRE(b.segments.size() == 6);
        CHECK(b.segments[1].chain == a.segments[1].chain);
        CHECK(b.segments[5].kind == model::SegmentKind::tool_result);
        const auto note = std::find_if(b.notes.begin(), b.notes.end(), [](const std::string& n) {
            return n.find("across line 7, which did not parse") != std::string::npos;
        });
        CHECK(note != b.notes.end());
    }

    TEST_CASE("synthetic API-error messages are neither requests nor history")
    {
        std::string text = transcript();
        std::string synthetic = assistant_line("u9", "u7", "req_Z", k_text, 0);
        synthetic.replace(synthetic.find("claude-sonnet-4-5-20250929"), 26, "<synthetic>");
        const auto loaded = test::load_text(text + synthetic + "\n",
                                            ingest::InputFormat::auto_detect, "sess-1.jsonl");
        CHECK(loaded.requests.size() == 2);
    }

    TEST_CASE("subagent calls only in progress lines are counted, once")
    {
        // Claude Code 2.x: tests/cli/data/claude-code-progress holds a session
        // whose subagent c41e7a2 exists only in progress lines (2 calls) and
        // whose subagent 9d2b6f0 is in progress lines and its own file (1 call).
        const auto loaded = test::load_paths(
            {std::string(CACHEWISE_SOURCE_DIR) + "/tests/cli/data/claude-code-progress/projects"});
        CHECK(loaded.summary.error_count == 0);
        std::int64_t input = 0;
        std::int64_t write = 0;
        std::int64_t read = 0;
        std::size_t progress_only = 0;
        for (const auto& r : loaded.requests) {
            input += r.usage->input_tokens.value_or(0);
            write += r.usage->cache_write.value_or(0);
            read += r.usage->cache_read.value_or(0);
            if (!r.prompt_logged) {
                ++progress_only;
                CHECK(r.stream.find("/agent-c41e7a2") != std::string::npos);
                CHECK(r.model == "claude-haiku-4-5-20251001");
            }
        }
        // The totals ccusage 20.0.24 gives on this folder.
        CHECK(loaded.requests.size() == 6);
        CHECK(progress_only == 2);
        CHECK(input == 16);
        CHECK(write == 35632);
        CHECK(read == 37920);
    }
}
