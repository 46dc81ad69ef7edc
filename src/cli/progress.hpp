#pragma once

#include "ingest/loader_types.hpp"

#include <chrono>
#include <cstdio>
#include <string>

namespace cachewise::cli {

// The progress line of a long load on standard error: files, MB read of
// the total, requests, rate and time left. Drawn once the run has taken a
// second, redrawn in place at most four times a second, erased at the end
// (or when the line goes out of scope, on an error too). Nothing at all
// when disabled: standard error is not a terminal, or --quiet.
class ProgressLine {
public:
    explicit ProgressLine(bool enabled, std::FILE* out = stderr);
    ~ProgressLine();
    ProgressLine(const ProgressLine&) = delete;
    ProgressLine& operator=(const ProgressLine&) = delete;

    void update(const ingest::LoadProgress& progress);
    void erase();

    // The line's text after `seconds` of a run.
    static std::string text(const ingest::LoadProgress& progress, double seconds);
    // Whether a line is wanted: standard error is a terminal and not --quiet.
    static bool wanted(bool quiet);

private:
    using Clock = std::chrono::steady_clock;
    bool m_enabled;
    std::FILE* m_out;
    Clock::time_point m_start;
    Clock::time_point m_last;
    bool m_drawn = false;
};

} // namespace cachewise::cli
