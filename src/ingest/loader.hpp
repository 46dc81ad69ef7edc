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
};

struct LoadSummary {
    std::uint64_t files = 0;
    std::uint64_t bytes = 0;
    std::uint64_t records = 0;    // lines or documents that held a request or response
    std::uint64_t requests = 0;   // requests delivered
    std::uint64_t skipped = 0;    // lines that are not requests (Claude Code bookkeeping, blanks)
    std::uint64_t duplicates = 0; // the same request id seen again (Claude Code resumes)
    std::uint64_t filtered = 0;   // requests outside --since/--until
    std::uint64_t files_skipped = 0; // files last modified before --since
    std::uint64_t error_count = 0;
    std::vector<InputError> errors; // the first k_max_kept_errors of them
    std::vector<std::string> notes; // what each folder walk matched
    static constexpr std::size_t k_max_kept_errors = 1000;
};

// Reads every input (files, directories walked recursively in name order, and
// "-" for standard input), detects each file's format unless one is forced,
// and hands each request to `on_request` in log order. Broken records are
// reported to `on_error` and skipped; an unreadable input is an error of the
// whole file. Memory is bounded by the largest record, except for Claude Code
// transcripts, whose history is rebuilt per file from compact per-line
// summaries.
class Loader {
public:
    using RequestCallback = std::function<void(model::Request&&)>;
    using ErrorCallback = std::function<void(const InputError&)>;

    Loader(const ruleset::Rules& rules, LoadOptions options);
    ~Loader();
    Loader(const Loader&) = delete;
    Loader& operator=(const Loader&) = delete;

    LoadSummary load(const std::vector<std::string>& inputs, const RequestCallback& on_request,
                     const ErrorCallback& on_error = {});

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

// The files `inputs` expand to: files as given, directories walked for
// *.json, *.jsonl, *.ndjson, *.sse, *.yaml and *.yml in name order. Throws
// Error for a path that does not exist. `notes` (when given) receives, per
// folder, how many files matched and how many others were left aside. A
// folder inside that cannot be listed goes to `unreadable` when given, else
// it is an Error too.
std::vector<std::string> expand_inputs(const std::vector<std::string>& inputs,
                                       std::vector<std::string>* notes = nullptr,
                                       std::vector<InputError>* unreadable = nullptr);

// A path as ids show it: relative to the current folder when it lies inside
// it (a request without an id of its own is "file:line").
std::string shown_path(const std::string& file);

// The extensions a folder walk reads, for messages: "*.json, *.jsonl, ...".
std::string walked_extensions();

} // namespace cachewise::ingest
