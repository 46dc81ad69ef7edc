#pragma once

#include "ingest/delivery.hpp"
#include "ingest/file_parts.hpp"
#include "ingest/loader.hpp"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace cachewise::ingest {

// A JSONL file read in parts on several threads.
struct PartedFile {
    std::string path;
    std::vector<FilePart> parts;
};

// One unit of parallel work: a whole file, or one part of a parted file.
struct LoadTask {
    std::string path;
    std::uint64_t size = 0; // bytes, for the progress line
    std::shared_ptr<PartedFile> parted;
    std::size_t part = 0;
};

// What to read, in order: each file whole, except large exchange JSONL
// files, in line-aligned parts of about `part_size` bytes. Claude Code
// transcripts stay whole: their history is rebuilt per file.
std::vector<LoadTask> plan_tasks(const std::vector<std::string>& files, const ruleset::Rules& rules,
                                 const LoadOptions& options, std::uint64_t part_size);

// Reads `tasks` on `options.jobs` worker threads and replays what each
// found into `delivery` on the calling thread, in task order. Workers run
// at most a few tasks ahead of the one being delivered, so the memory in
// flight is a few files or parts, never a whole log. `on_task` is called
// after each task is delivered, with its bytes and whether it ended a file.
void load_parallel(const std::vector<LoadTask>& tasks, const ruleset::Rules& rules,
                   const LoadOptions& options, Delivery& delivery,
                   const std::function<void(std::uint64_t bytes, bool file_done)>& on_task);

} // namespace cachewise::ingest
