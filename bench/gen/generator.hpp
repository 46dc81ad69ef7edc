#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace cachewise::gen {

enum class Format {
    exchange,    // {"id","session",...,"request","response"} per line (Anthropic Messages)
    claude_code, // Claude Code transcript lines, one per content block
    openai,      // exchange records of OpenAI Chat Completions
};

std::string_view to_string(Format format);

struct GenOptions {
    Format format = Format::exchange;
    std::uint64_t seed = 1;         // the output is a function of it
    std::uint64_t target_bytes = 0; // stop once this much is written
    std::size_t sessions = 4;       // interleaved at any time (generate only)
};

struct GenStats {
    std::uint64_t written = 0; // bytes
    std::uint64_t lines = 0;
    std::uint64_t requests = 0;
    std::uint64_t sessions = 0;
};

// Writes `options.sessions` interleaved sessions to `out` until
// `options.target_bytes` are written. Throws std::runtime_error when a write
// fails.
GenStats generate(std::FILE* out, const GenOptions& options);

// One file per session, as Claude Code keeps its transcripts:
// <dir>/<session id>.jsonl, one session at a time. `dir` must exist. Throws
// std::runtime_error (naming the file) when one cannot be written.
GenStats generate_split(const std::string& dir, const GenOptions& options);

} // namespace cachewise::gen
