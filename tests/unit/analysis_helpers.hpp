#pragma once

// Builds small logs for the analysis tests and runs `analyze` on them.

#include "analysis/analyzer.hpp"
#include "helpers.hpp"

#include <fmt/format.h>

#include <string>
#include <vector>

namespace cachewise::test {

struct Analysed {
    analysis::AnalysisResult result;
    ingest::LoadSummary load;
};

inline Analysed
analyse(const std::vector<std::string>& lines, analysis::AnalyzeOptions options = {})
{
    std::string text;
    for (const auto& l : lines) {
        text += l + "\n";
    }
    TempFile file(text);
    model::TextStore texts;
    ingest::LoadOptions load_options;
    load_options.text_store = &texts;
    ingest::Loader loader(rules(), load_options);
    analysis::Analyzer analyzer(rules(), options, texts);
    Analysed out;
    out.load = loader.load({file.path()}, [&](model::Request&& r) { analyzer.add(std::move(r)); });
    out.result = analyzer.finish();
    return out;
}

// An exchange record: id, session, start second, and the request body.
inline std::string
record(const std::string& id, const std::string& session, int second, const std::string& body)
{
    return fmt::format(
        R"({{"id":"{}","session":"{}","started_at":"2026-11-20T10:{:02}:{:02}Z","request":{}}})",
        id, session, second / 60, second % 60, body);
}

inline const char*
tools_json()
{
    return R"([{"name":"read_file","description":"Read a file from the workspace.","input_schema":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}},{"name":"run","description":"Run a shell command.","input_schema":{"type":"object","properties":{"cmd":{"type":"string"}},"required":["cmd"]}}])";
}

// A body with the given tools, system text and messages (JSON), cached at the
// end of the system prompt and on the last message.
inline std::string
body(const std::string& system, const std::string& messages,
     const std::string& tools = tools_json(), const std::string& extra = "")
{
    return fmt::format(
        R"({{"model":"claude-sonnet-4-5","max_tokens":512,"tools":{},"system":[{{"type":"text","text":{},"cache_control":{{"type":"ephemeral"}}}}],"messages":{}{}}})",
        tools, system, messages, extra);
}

} // namespace cachewise::test
