// cachewise_bench_ingest: single-threaded throughput of read + segment + chain.
//
//   cachewise_bench_ingest FILE|DIR [--repeat N] [--input-format F]
//
// Loads FILE with ingest::Loader N times (default 3) on the calling thread,
// folds every segment's identity chain into a checksum so that no work can be
// optimised away, and reports the best and median wall time, the throughput
// in MB/s (1 MB = 1,000,000 bytes of input) and the process's peak resident
// set size. The last line of output is one JSON object for scripts.

#include "ingest/loader.hpp"
#include "ruleset/rules.hpp"

#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <optional>
#include <string>
#include <string_view>
#include <sys/resource.h>
#include <vector>

namespace {

// simdjson's On-Demand code is compiled into cachewise_core with the same flags
// as this file (cachewise_settings), so this names the kernel the loader uses;
// simdjson::builtin_implementation() would name the shared library's.
#define CACHEWISE_BENCH_STR2(x) #x
#define CACHEWISE_BENCH_STR(x) CACHEWISE_BENCH_STR2(x)
constexpr std::string_view k_ondemand_kernel = CACHEWISE_BENCH_STR(SIMDJSON_BUILTIN_IMPLEMENTATION);

long
peak_rss_kib()
{
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss; // KiB on Linux
}

std::string
json_escape(std::string_view s)
{
    std::string out;
    for (const char c : s) {
        const auto u = static_cast<unsigned char>(c);
        if (c == '"' || c == '\\') {
            out.push_back('\\');
            out.push_back(c);
        } else if (u < 0x20) {
            out += fmt::format("\\u{:04x}", u);
        } else {
            out.push_back(c);
        }
    }
    return out;
}

[[noreturn]] void
usage(int code)
{
    std::fputs("usage: cachewise_bench_ingest FILE|DIR [--repeat N] [--input-format F]\n"
               "  --repeat N        timed loads of FILE (default 3)\n"
               "  --input-format F  auto (default), exchange, request, sse or claude-code\n",
               code == 0 ? stdout : stderr);
    std::exit(code);
}

struct Run {
    double seconds = 0;
    cachewise::ingest::LoadSummary summary;
    std::uint64_t segments = 0;
    std::uint64_t checksum = 0;
    std::int64_t tokens = 0; // sum of segment tokens, a second check
};

} // namespace

int
main(int argc, char** argv)
{
    using namespace cachewise;
    std::string path;
    int repeat = 3;
    ingest::InputFormat format = ingest::InputFormat::auto_detect;
    for (int i = 1; i < argc; ++i) {
        const std::string_view a = argv[i];
        if ((a == "--repeat" || a == "--input-format") && i + 1 >= argc) {
            std::fprintf(stderr, "cachewise_bench_ingest: %s needs a value\n", argv[i]);
            return 2;
        }
        if (a == "--repeat") {
            repeat = std::atoi(argv[++i]);
            if (repeat < 1) {
                std::fprintf(stderr,
                             "cachewise_bench_ingest: --repeat: expected a positive number\n");
                return 2;
            }
        } else if (a == "--input-format") {
            const auto f = ingest::parse_input_format(argv[++i]);
            if (!f) {
                std::fprintf(stderr, "cachewise_bench_ingest: --input-format: unknown format %s\n",
                             argv[i]);
                return 2;
            }
            format = *f;
        } else if (a == "-h" || a == "--help") {
            usage(0);
        } else if (!a.empty() && a.front() == '-' && a != "-") {
            std::fprintf(stderr, "cachewise_bench_ingest: unknown option %s\n", argv[i]);
            usage(2);
        } else if (path.empty()) {
            path = a;
        } else {
            usage(2);
        }
    }
    if (path.empty()) {
        usage(2);
    }

    try {
        const auto rules = ruleset::load_rules(std::nullopt);
        const long rss_before = peak_rss_kib();

        std::vector<Run> runs;
        for (int r = 0; r < repeat; ++r) {
            ingest::LoadOptions options;
            options.format = format;
            ingest::Loader loader(*rules, options);
            Run run;
            std::uint64_t first_error_shown = 0;
            const auto t0 = std::chrono::steady_clock::now();
            run.summary = loader.load(
                {path},
                [&](model::Request&& request) {
                    run.segments += request.segments.size();
                    for (const auto& s : request.segments) {
                        run.checksum ^= s.chain.low ^ (s.chain.high * 0x9E3779B97F4A7C15ULL);
                        run.tokens += s.tokens;
                    }
                },
                [&](const ingest::InputError& e) {
                    if (r == 0 && first_error_shown++ < 5) {
                        std::fprintf(stderr, "error: %s\n", e.str().c_str());
                    }
                });
            run.seconds =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            std::fprintf(stderr, "run %d: %.3f s, %.1f MB/s\n", r + 1, run.seconds,
                         static_cast<double>(run.summary.bytes) / 1e6 / run.seconds);
            runs.push_back(std::move(run));
        }

        std::vector<double> times;
        for (const auto& run : runs) {
            times.push_back(run.seconds);
            if (run.checksum != runs.front().checksum || run.segments != runs.front().segments ||
                run.tokens != runs.front().tokens) {
                std::fprintf(stderr,
                             "cachewise_bench_ingest: runs disagree (checksum or segment count)\n");
                return 1;
            }
        }
        std::sort(times.begin(), times.end());
        const double best = times.front();
        const double median = times.size() % 2 == 1
                                  ? times[times.size() / 2]
                                  : (times[times.size() / 2 - 1] + times[times.size() / 2]) / 2;
        const Run& first = runs.front();
        const auto& s = first.summary;
        const double mb = static_cast<double>(s.bytes) / 1e6;
        const long rss = peak_rss_kib();

        fmt::print("file              {}\n", path);
        fmt::print("input format      {}\n", ingest::to_string(format));
        fmt::print("simdjson kernel   {}\n", k_ondemand_kernel);
        fmt::print("bytes             {} ({:.1f} MB, 1 MB = 1e6 bytes)\n", s.bytes, mb);
        fmt::print("records           {}\n", s.records);
        fmt::print("requests          {}\n", s.requests);
        fmt::print("segments          {} ({:.1f} per request)\n", first.segments,
                   s.requests == 0
                       ? 0.0
                       : static_cast<double>(first.segments) / static_cast<double>(s.requests));
        fmt::print("skipped lines     {}\n", s.skipped);
        fmt::print("duplicates        {}\n", s.duplicates);
        fmt::print("errors            {}\n", s.error_count);
        fmt::print("repeats           {}\n", repeat);
        fmt::print("best wall time    {:.3f} s  ({:.1f} MB/s)\n", best, mb / best);
        fmt::print("median wall time  {:.3f} s  ({:.1f} MB/s)\n", median, mb / median);
        fmt::print("requests/s        {:.0f} (best)\n", static_cast<double>(s.requests) / best);
        fmt::print("peak RSS          {:.1f} MiB (after loading rules: {:.1f} MiB)\n",
                   static_cast<double>(rss) / 1024.0, static_cast<double>(rss_before) / 1024.0);
        fmt::print("chain checksum    {:016x}\n", first.checksum);
        fmt::print("segment tokens    {}\n", first.tokens);
        fmt::print(
            "{{\"bench\":\"ingest\",\"file\":\"{}\",\"format\":\"{}\",\"bytes\":{},\"requests\":{},"
            "\"segments\":{},\"errors\":{},\"repeat\":{},\"best_s\":{:.6f},\"median_s\":{:.6f},"
            "\"mb_per_s_best\":{:.2f},\"mb_per_s_median\":{:.2f},\"peak_rss_kib\":{},"
            "\"rules_rss_kib\":{},\"kernel\":\"{}\",\"checksum\":\"{:016x}\",\"tokens\":{}}}\n",
            json_escape(path), ingest::to_string(format), s.bytes, s.requests, first.segments,
            s.error_count, repeat, best, median, mb / best, mb / median, rss, rss_before,
            k_ondemand_kernel, first.checksum, first.tokens);
        return s.error_count == 0 ? 0 : 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "cachewise_bench_ingest: %s\n", e.what());
        return 1;
    }
}
