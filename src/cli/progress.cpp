#include "cli/progress.hpp"

#include "util/format.hpp"

#include <fmt/format.h>

#include <cmath>
#include <unistd.h>

namespace cachewise::cli {

namespace {

constexpr auto k_quiet_start = std::chrono::seconds(1);
constexpr auto k_redraw = std::chrono::milliseconds(250);

std::string
duration(double seconds)
{
    const long long s = std::llround(seconds);
    return s < 60 ? fmt::format("{} s", s) : fmt::format("{} min {:02} s", s / 60, s % 60);
}

} // namespace

ProgressLine::ProgressLine(bool enabled, std::FILE* out)
    : m_enabled(enabled), m_out(out), m_start(Clock::now()), m_last(m_start)
{}

ProgressLine::~ProgressLine()
{
    erase();
}

bool
ProgressLine::wanted(bool quiet)
{
    return !quiet && ::isatty(STDERR_FILENO) == 1;
}

std::string
ProgressLine::text(const ingest::LoadProgress& p, double seconds)
{
    // Sizes in human_bytes' binary units, as chain's summary and audit print them.
    std::string out = fmt::format("reading: {} of {} · ", group_count(p.files_done),
                                  count_noun(p.files_total, "file"));
    out += p.bytes_total > 0
               ? fmt::format("{} of {}", human_bytes(p.bytes_done), human_bytes(p.bytes_total))
               : human_bytes(p.bytes_done);
    out += fmt::format(" · {}", count_noun(p.requests, "request"));
    if (seconds > 0 && p.bytes_done > 0) {
        const double rate = static_cast<double>(p.bytes_done) / seconds; // bytes per second
        out += fmt::format(" · {}/s", human_bytes(static_cast<std::uint64_t>(rate)));
        if (p.bytes_total > p.bytes_done) {
            const double left = static_cast<double>(p.bytes_total - p.bytes_done) / rate;
            out += fmt::format(" · {} left", duration(left));
        }
    }
    return out;
}

void
ProgressLine::update(const ingest::LoadProgress& progress)
{
    if (!m_enabled) {
        return;
    }
    const auto now = Clock::now();
    if (now - m_start < k_quiet_start || (m_drawn && now - m_last < k_redraw)) {
        return;
    }
    m_last = now;
    m_drawn = true;
    const double seconds = std::chrono::duration<double>(now - m_start).count();
    // \r back to the start, ESC[K clears what a longer line left.
    fmt::print(m_out, "\r{}\x1b[K", text(progress, seconds));
    std::fflush(m_out);
}

void
ProgressLine::erase()
{
    if (m_drawn) {
        fmt::print(m_out, "\r\x1b[K");
        std::fflush(m_out);
        m_drawn = false;
    }
}

} // namespace cachewise::cli
