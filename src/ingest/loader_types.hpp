#pragma once

#include "model/request.hpp"
#include "model/text_store.hpp"
#include "ruleset/rules.hpp"
#include "util/time.hpp"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cachewise::ingest {

enum class InputFormat {
    auto_detect,
    request,     // one Messages API request body (JSON)
    exchange,    // JSONL: {"request": ..., "response": ...} records or bare bodies
    sse,         // an SSE response stream
    claude_code, // Claude Code transcript JSONL
    vcr,         // a VCR cassette (YAML) of recorded API calls
};
std::string_view to_string(InputFormat format);
std::optional<InputFormat> parse_input_format(std::string_view name);

// One record that could not be used: reported, counted, skipped.
struct InputError {
    std::string file;
    std::uint64_t line = 0; // 0: the whole file
    std::string field;      // JSON path inside the record, may be empty
    std::string reason;

    [[nodiscard]] std::string str() const;
};

struct LoadOptions {
    InputFormat format = InputFormat::auto_detect;
    std::size_t max_record_bytes = std::size_t{1} << 30;
    model::TextStore* text_store = nullptr; // keep rendered segment bytes
    std::string model_override;             // --model: replaces (or supplies) every request's model
    // Keep only requests started in [since, until). A file last modified
    // before `since` is skipped unread; requests without a start time are kept.
    std::optional<Timestamp> since;
    std::optional<Timestamp> until;
    // Threads that parse: files in parallel, and large JSONL files in
    // line-aligned chunks. 1 reads on the calling thread alone. The
    // callbacks see the same requests and errors in the same order
    // whatever the number.
    unsigned jobs = 1;
    // Work on each request done where it was parsed, before it is
    // delivered (exact token counts): with jobs above 1 on the parse
    // workers, in parallel, so that it is not left to the one thread that
    // delivers. Called once per request parsed, from several threads at
    // once, before --since, --until and repeated transcripts are filtered
    // and before a Gemini explicit cache is inlined; a part read again on
    // the delivering thread (its format guessed wrong) calls it for the
    // requests it makes then, and only those are delivered.
    std::function<void(model::Request&)> on_parsed;
};

// How far a load has come, for a progress line.
struct LoadProgress {
    std::uint64_t files_done = 0;
    std::uint64_t files_total = 0;
    std::uint64_t bytes_done = 0;
    std::uint64_t bytes_total = 0; // standard input counts 0
    std::uint64_t requests = 0;
};

struct LoadSummary {
    std::uint64_t files = 0;
    std::uint64_t bytes = 0;
    std::uint64_t records = 0;    // lines or documents that held a request or response
    std::uint64_t requests = 0;   // requests delivered
    std::uint64_t skipped = 0;    // lines that are not requests (Claude Code bookkeeping, blanks)
    std::uint64_t duplicates = 0; // the same request id seen again (Claude Code resumes)
    std::uint64_t filtered = 0;   // requests outside --since/--until
    // Of them, requests without a start time: a window cannot place them.
    std::uint64_t filtered_untimed = 0;
    std::uint64_t files_skipped = 0; // files last modified before --since
    std::uint64_t error_count = 0;
    std::vector<InputError> errors; // the first k_max_kept_errors of them
    std::vector<std::string> notes; // what each folder walk matched
    static constexpr std::size_t k_max_kept_errors = 1000;
};

// The threads worth running: the cores this process may use.
unsigned default_jobs();

} // namespace cachewise::ingest
