#pragma once

#include "ingest/inputs.hpp"
#include "ingest/loader_types.hpp"
#include "model/request.hpp"
#include "ruleset/rules.hpp"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace cachewise::ingest {

// Reads every input (files, directories walked recursively in name order, and
// "-" for standard input), detects each file's format unless one is forced,
// and hands each request to `on_request` in log order. Broken records are
// reported to `on_error` and skipped; an unreadable input is an error of the
// whole file. Memory is bounded by the largest record, except for Claude Code
// transcripts, whose history is rebuilt per file from compact per-line
// summaries. With LoadOptions::jobs above 1, files (and large JSONL files
// in line-aligned chunks) are parsed on worker threads, a bounded number
// ahead of the one being delivered.
class Loader {
public:
    using RequestCallback = std::function<void(model::Request&&)>;
    using ErrorCallback = std::function<void(const InputError&)>;

    Loader(const ruleset::Rules& rules, LoadOptions options);
    ~Loader();
    Loader(const Loader&) = delete;
    Loader& operator=(const Loader&) = delete;

    using ProgressCallback = std::function<void(const LoadProgress&)>;

    LoadSummary load(const std::vector<std::string>& inputs, const RequestCallback& on_request,
                     const ErrorCallback& on_error = {});

    // Called on the calling thread as files and parts of files are
    // delivered (a few times a second at most is up to the callee).
    void set_progress(ProgressCallback on_progress);

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

} // namespace cachewise::ingest
