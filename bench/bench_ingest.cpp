// cachewise_bench_ingest: throughput of read + segment + chain.
//
//   cachewise_bench_ingest FILE|DIR [--repeat N] [--input-format F] [--tokenize]
//                          [--jobs J]
//
// Loads FILE with ingest::Loader N times (default 3) on the calling thread
// (--jobs J above 1: with J parse workers, CPU times the process's),
// folds every segment's identity chain into a checksum so that no work can be
// optimised away, and reports the best and median wall time, the throughput
// in MB/s (1 MB = 1,000,000 bytes of input) and the process's peak resident
// set size. The last line of output is one JSON object for scripts.
//
// --tokenize measures what exact token counts cost: each repeat loads the
// file twice, alternately, both times keeping segment text as the commands
// do (a model::TextStore), once as it is and once with every request of a
// model with a public tokenizer counted by tokenize::ExactCounts (the
// manifest read and the vocabulary loaded inside the timed region, as a
// command pays them). It prints the best time of each and the cost as a
// share of the plain ingest time (the bound: at most 20%).

#include "ingest/loader.hpp"
#include "ruleset/rules.hpp"
#include "tokenize/catalogue.hpp"
#include "tokenize/concurrent_counts.hpp"
#include "tokenize/exact_counts.hpp"
#include "util/error.hpp"

#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <exception>
#include <optional>
#include <set>
#include <stdexcept>
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
    std::fputs("usage: cachewise_bench_ingest FILE|DIR [--repeat N] [--input-format F] "
               "[--tokenize] [--jobs J]\n"
               "  --repeat N        timed loads of FILE (default 3)\n"
               "  --jobs J          parse workers (default 1: the calling thread)\n"
               "  --input-format F  auto (default), exchange, request, sse or claude-code\n"
               "  --tokenize        each repeat twice, without and with exact token counts,\n"
               "                    and the ratio of the best times\n",
               code == 0 ? stdout : stderr);
    std::exit(code);
}

// CPU time of the calling thread: on a shared machine other work stretches
// the wall time of a run, not this.
double
thread_cpu_seconds()
{
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

// The same for the whole process: with --jobs above 1 the workers parse.
double
process_cpu_seconds()
{
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

struct Run {
    double seconds = 0;
    double cpu_seconds = 0;
    cachewise::ingest::LoadSummary summary;
    std::uint64_t segments = 0;
    std::uint64_t checksum = 0;
    std::int64_t tokens = 0; // sum of segment tokens, a second check
    std::uint64_t exact_requests = 0;
    std::uint64_t counted = 0;  // distinct segments tokenised
    std::uint64_t memoised = 0; // segments whose count came from the memo
    std::uint64_t bytes_counted = 0;
    double count_cpu_seconds = 0; // CPU time inside ExactCounts::apply, all threads
    std::set<std::string> tokenizers;
};

struct Args {
    std::string path;
    int repeat = 3;
    cachewise::ingest::InputFormat format = cachewise::ingest::InputFormat::auto_detect;
    bool tokenize = false;
    unsigned jobs = 1;
};

// How one timed load runs.
struct LoadSpec {
    cachewise::ingest::InputFormat format = cachewise::ingest::InputFormat::auto_detect;
    unsigned jobs = 1;
    bool keep_text = false;
    bool exact = false;
    bool show_errors = false;
};

// Exact counts as a command makes them: on the calling thread with one
// job, on the parse workers (LoadOptions::on_parsed) with more.
class Counting {
public:
    Counting(cachewise::ingest::LoadOptions& options, const cachewise::model::TextStore& texts)
        : m_dir(cachewise::tokenize::find_tokenizer_dir(std::nullopt)),
          m_catalogue(
              value_or_throw(cachewise::tokenize::Catalogue::load(m_dir, std::nullopt), "")),
          m_counts(m_catalogue)
    {
        if (options.jobs > 1) {
            m_concurrent.emplace(m_dir, std::nullopt);
            options.on_parsed = [this, &texts](cachewise::model::Request& r) {
                const double c0 = thread_cpu_seconds();
                m_requests += m_concurrent->apply(r, texts) ? 1 : 0;
                add_cpu(thread_cpu_seconds() - c0);
            };
        }
    }
    // On the delivering thread: counts, unless the workers did.
    void delivered(cachewise::model::Request& r, const cachewise::model::TextStore& texts)
    {
        if (!m_concurrent) {
            const double c0 = thread_cpu_seconds();
            m_requests += m_counts.apply(r, texts) ? 1 : 0;
            add_cpu(thread_cpu_seconds() - c0);
        }
    }
    void tally(Run& run)
    {
        if (m_concurrent) {
            m_concurrent->merge_into(m_counts);
        }
        run.exact_requests = m_requests;
        run.count_cpu_seconds = static_cast<double>(m_cpu_ns) / 1e9;
        run.counted = m_counts.segments_counted();
        run.memoised = m_counts.segments_memoised();
        run.bytes_counted = m_counts.bytes_counted();
        run.tokenizers = m_counts.tokenizers_used();
    }

private:
    void add_cpu(double seconds) { m_cpu_ns += static_cast<std::int64_t>(seconds * 1e9); }

    std::string m_dir;
    cachewise::tokenize::Catalogue m_catalogue;
    cachewise::tokenize::ExactCounts m_counts;
    std::optional<cachewise::tokenize::ConcurrentCounts> m_concurrent;
    std::atomic<std::uint64_t> m_requests{0};
    std::atomic<std::int64_t> m_cpu_ns{0};
};

// One timed load. With `exact`, requests are counted by their model's
// tokenizer, the manifest and vocabulary loaded inside the timed region.
Run
load_once(const cachewise::ruleset::Rules& rules, const std::string& path, const LoadSpec& spec)
{
    using namespace cachewise;
    model::TextStore texts;
    ingest::LoadOptions options;
    options.format = spec.format;
    options.jobs = spec.jobs;
    options.text_store = spec.keep_text ? &texts : nullptr;
    Run run;
    std::uint64_t first_error_shown = 0;
    const auto t0 = std::chrono::steady_clock::now();
    const double cpu0 = spec.jobs > 1 ? process_cpu_seconds() : thread_cpu_seconds();
    std::optional<Counting> counting;
    if (spec.exact) {
        counting.emplace(options, texts);
    }
    ingest::Loader loader(rules, options);
    run.summary = loader.load(
        {path},
        [&](model::Request&& request) {
            if (counting) {
                counting->delivered(request, texts);
            }
            run.segments += request.segments.size();
            for (const auto& s : request.segments) {
                run.checksum ^= s.chain.low ^ (s.chain.high * 0x9E3779B97F4A7C15ULL);
                run.tokens += s.tokens;
            }
        },
        [&](const ingest::InputError& e) {
            if (spec.show_errors && first_error_shown++ < 5) {
                std::fprintf(stderr, "error: %s\n", e.str().c_str());
            }
        });
    run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    run.cpu_seconds = (spec.jobs > 1 ? process_cpu_seconds() : thread_cpu_seconds()) - cpu0;
    if (counting) {
        counting->tally(run);
    }
    return run;
}

double
best_of(const std::vector<Run>& runs, double Run::*time = &Run::seconds)
{
    double best = runs.front().*time;
    for (const auto& r : runs) {
        best = std::min(best, r.*time);
    }
    return best;
}

// CPU seconds to read, check and load the vocabularies `names` from a fresh
// catalogue (best of three): the part of exact counting that does not grow
// with the log.
double
vocabulary_load_seconds(const std::set<std::string>& names)
{
    using namespace cachewise;
    double best = 1e30;
    for (int r = 0; r < 3; ++r) {
        auto catalogue =
            tokenize::Catalogue::load(tokenize::find_tokenizer_dir(std::nullopt), std::nullopt);
        if (!catalogue) {
            throw std::runtime_error(catalogue.error());
        }
        const double t0 = thread_cpu_seconds();
        for (const auto& name : names) {
            if (const auto* entry = catalogue->find(name)) {
                (void)catalogue->tokenizer(*entry);
            }
        }
        best = std::min(best, thread_cpu_seconds() - t0);
    }
    return best;
}

// The figures of --tokenize, the last line one JSON object.
void
print_tokenize(const Args& args, const std::vector<Run>& plain, const std::vector<Run>& exact)
{
    const std::string& path = args.path;
    const double a = best_of(plain);
    const double b = best_of(exact);
    const Run& e = exact.front();
    const double mb = static_cast<double>(e.summary.bytes) / 1e6;
    const double cost = (b - a) / a;
    const double cpu_a = best_of(plain, &Run::cpu_seconds);
    const double cpu_b = best_of(exact, &Run::cpu_seconds);
    const double cpu_cost = (cpu_b - cpu_a) / cpu_a;
    const double counting = best_of(exact, &Run::count_cpu_seconds);
    const double load = vocabulary_load_seconds(e.tokenizers);
    const double text_mb = static_cast<double>(e.bytes_counted) / 1e6;
    fmt::print("file              {}\n", path);
    fmt::print("jobs              {}{}\n", args.jobs,
               args.jobs > 1 ? " (the parse workers count; CPU times are the process's)" : "");
    fmt::print("bytes             {} ({:.1f} MB)\n", e.summary.bytes, mb);
    fmt::print("requests          {} ({} counted exactly)\n", e.summary.requests, e.exact_requests);
    fmt::print("segments          {} ({} tokenised, {:.1f} MB of text; {} from the memo)\n",
               e.segments, e.counted, text_mb, e.memoised);
    fmt::print("best, plain       {:.3f} s  ({:.1f} MB/s)\n", a, mb / a);
    fmt::print("best, exact       {:.3f} s  ({:.1f} MB/s)\n", b, mb / b);
    fmt::print("best CPU time     {:.3f} s plain, {:.3f} s exact\n", cpu_a, cpu_b);
    fmt::print("counting CPU time {:.3f} s (best): vocabulary load {:.3f} s, the rest {:.3f} s "
               "({:.0f} MB/s of text tokenised)\n",
               counting, load, counting - load, text_mb / std::max(counting - load, 1e-9));
    fmt::print("exact counts cost {:.1f}% of the plain ingest wall time, {:.1f}% of its CPU time "
               "(best of {}; bound 20%)\n",
               cost * 100, cpu_cost * 100, plain.size());
    fmt::print(
        "{{\"bench\":\"ingest-tokenize\",\"file\":\"{}\",\"jobs\":{},\"bytes\":{},\"requests\":{},"
        "\"exact_requests\":{},\"segments\":{},\"tokenised\":{},\"tokenised_bytes\":{},"
        "\"memoised\":{},"
        "\"repeat\":{},\"best_plain_s\":{:.6f},\"best_exact_s\":{:.6f},\"cost\":{:.4f},"
        "\"best_plain_cpu_s\":{:.6f},\"best_exact_cpu_s\":{:.6f},\"cpu_cost\":{:.4f},"
        "\"counting_cpu_s\":{:.6f},\"vocabulary_load_cpu_s\":{:.6f}}}\n",
        json_escape(path), args.jobs, e.summary.bytes, e.summary.requests, e.exact_requests,
        e.segments, e.counted, e.bytes_counted, e.memoised, plain.size(), a, b, cost, cpu_a, cpu_b,
        cpu_cost, counting, load);
}

// --tokenize: plain and exact loads alternately; the cost of exact counts.
int
compare_tokenize(const cachewise::ruleset::Rules& rules, const Args& args)
{
    std::vector<Run> plain;
    std::vector<Run> exact;
    for (int r = 0; r < args.repeat; ++r) {
        const LoadSpec spec{args.format, args.jobs, true, false, r == 0};
        plain.push_back(load_once(rules, args.path, spec));
        exact.push_back(load_once(rules, args.path, LoadSpec{args.format, args.jobs, true, true}));
        std::fprintf(stderr,
                     "run %d: %.3f s plain (%.3f s CPU), %.3f s with exact counts (%.3f s CPU)\n",
                     r + 1, plain.back().seconds, plain.back().cpu_seconds, exact.back().seconds,
                     exact.back().cpu_seconds);
    }
    print_tokenize(args, plain, exact);
    return exact.front().summary.error_count == 0 ? 0 : 1;
}

// The command line, checked: a bad value exits 2 with a message.
Args
parse_args(int argc, char** argv)
{
    using namespace cachewise;
    Args args;
    for (int i = 1; i < argc; ++i) {
        const std::string_view a = argv[i];
        if ((a == "--repeat" || a == "--input-format" || a == "--jobs") && i + 1 >= argc) {
            std::fprintf(stderr, "cachewise_bench_ingest: %s needs a value\n", argv[i]);
            std::exit(2);
        }
        if (a == "--repeat") {
            args.repeat = std::atoi(argv[++i]);
            if (args.repeat < 1) {
                std::fprintf(stderr,
                             "cachewise_bench_ingest: --repeat: expected a positive number\n");
                std::exit(2);
            }
        } else if (a == "--input-format") {
            const auto f = ingest::parse_input_format(argv[++i]);
            if (!f) {
                std::fprintf(stderr, "cachewise_bench_ingest: --input-format: unknown format %s\n",
                             argv[i]);
                std::exit(2);
            }
            args.format = *f;
        } else if (a == "--jobs") {
            const int jobs = std::atoi(argv[++i]);
            if (jobs < 1) {
                std::fprintf(stderr,
                             "cachewise_bench_ingest: --jobs: expected a positive number\n");
                std::exit(2);
            }
            args.jobs = static_cast<unsigned>(jobs);
        } else if (a == "--tokenize") {
            args.tokenize = true;
        } else if (a == "-h" || a == "--help") {
            usage(0);
        } else if (!a.empty() && a.front() == '-' && a != "-") {
            std::fprintf(stderr, "cachewise_bench_ingest: unknown option %s\n", argv[i]);
            usage(2);
        } else if (args.path.empty()) {
            args.path = a;
        } else {
            usage(2);
        }
    }
    if (args.path.empty()) {
        usage(2);
    }
    return args;
}

struct Timing {
    double best = 0;
    double median = 0;
};

Timing
best_and_median(const std::vector<Run>& runs)
{
    std::vector<double> times;
    times.reserve(runs.size());
    for (const auto& run : runs) {
        times.push_back(run.seconds);
    }
    std::sort(times.begin(), times.end());
    const std::size_t n = times.size();
    return Timing{times.front(), n % 2 == 1 ? times[n / 2] : (times[n / 2 - 1] + times[n / 2]) / 2};
}

// The figures of the plain benchmark, the last line one JSON object.
void
print_plain(const Args& args, const Run& first, Timing t, long rss, long rss_before)
{
    using namespace cachewise;
    const auto& s = first.summary;
    const double mb = static_cast<double>(s.bytes) / 1e6;
    fmt::print("file              {}\n", args.path);
    fmt::print("input format      {}\n", ingest::to_string(args.format));
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
    fmt::print("repeats           {}\n", args.repeat);
    fmt::print("best wall time    {:.3f} s  ({:.1f} MB/s)\n", t.best, mb / t.best);
    fmt::print("median wall time  {:.3f} s  ({:.1f} MB/s)\n", t.median, mb / t.median);
    fmt::print("requests/s        {:.0f} (best)\n", static_cast<double>(s.requests) / t.best);
    fmt::print("peak RSS          {:.1f} MiB (after loading rules: {:.1f} MiB)\n",
               static_cast<double>(rss) / 1024.0, static_cast<double>(rss_before) / 1024.0);
    fmt::print("chain checksum    {:016x}\n", first.checksum);
    fmt::print("segment tokens    {}\n", first.tokens);
    fmt::print(
        "{{\"bench\":\"ingest\",\"file\":\"{}\",\"format\":\"{}\",\"bytes\":{},\"requests\":{},"
        "\"segments\":{},\"errors\":{},\"repeat\":{},\"best_s\":{:.6f},\"median_s\":{:.6f},"
        "\"mb_per_s_best\":{:.2f},\"mb_per_s_median\":{:.2f},\"peak_rss_kib\":{},"
        "\"rules_rss_kib\":{},\"kernel\":\"{}\",\"checksum\":\"{:016x}\",\"tokens\":{}}}\n",
        json_escape(args.path), ingest::to_string(args.format), s.bytes, s.requests, first.segments,
        s.error_count, args.repeat, t.best, t.median, mb / t.best, mb / t.median, rss, rss_before,
        k_ondemand_kernel, first.checksum, first.tokens);
}

// `repeat` timed loads that must agree on every checksum, then the figures.
int
bench_plain(const cachewise::ruleset::Rules& rules, const Args& args, long rss_before)
{
    std::vector<Run> runs;
    for (int r = 0; r < args.repeat; ++r) {
        Run run =
            load_once(rules, args.path, LoadSpec{args.format, args.jobs, false, false, r == 0});
        std::fprintf(stderr, "run %d: %.3f s, %.1f MB/s\n", r + 1, run.seconds,
                     static_cast<double>(run.summary.bytes) / 1e6 / run.seconds);
        runs.push_back(std::move(run));
    }
    for (const auto& run : runs) {
        if (run.checksum != runs.front().checksum || run.segments != runs.front().segments ||
            run.tokens != runs.front().tokens) {
            std::fprintf(stderr,
                         "cachewise_bench_ingest: runs disagree (checksum or segment count)\n");
            return 1;
        }
    }
    const Timing t = best_and_median(runs);
    print_plain(args, runs.front(), t, peak_rss_kib(), rss_before);
    return runs.front().summary.error_count == 0 ? 0 : 1;
}

} // namespace

int
main(int argc, char** argv)
{
    using namespace cachewise;
    const Args args = parse_args(argc, argv);
    try {
        const auto rules = ruleset::load_rules(std::nullopt);
        const long rss_before = peak_rss_kib();
        if (args.tokenize) {
            return compare_tokenize(*rules, args);
        }
        return bench_plain(*rules, args, rss_before);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "cachewise_bench_ingest: %s\n", e.what());
        return 1;
    }
}
