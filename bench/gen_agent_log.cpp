// cachewise_gen_log: writes large synthetic agent logs for the ingest benchmark.
//
//   cachewise_gen_log --out FILE --size-mb N [--sessions K] [--seed S]
//                     [--format exchange|claude-code|openai] [--ascii] [--split]
//
// The shape follows what a coding agent writes: K sessions interleaved in one
// log; each session keeps a fixed system prompt (6-10 KB of text blocks, the
// last one with cache_control) and 4-8 tool definitions with JSON-schema
// input_schema; its history grows append-only turn after turn (assistant text
// plus 1-4 tool_use blocks, then a user message of tool_result blocks holding
// code and log text with quotes, backslashes, newlines, tabs, ANSI escapes,
// Unicode and digits) with cache_control moving to the last user block; a
// session runs 20-80 turns and then a new one takes its place, until the file
// holds N MB (1 MB = 1,000,000 bytes). The output is a function of the seed.
//
// exchange:    one {"id","session","started_at","first_token_at","ended_at",
//              "request":{...},"response":{...}} record per line; every record
//              repeats the whole history, as proxies log it.
// openai:      the same conversations as exchange records of OpenAI Chat
//              Completions: a system message, tools as functions, assistant
//              tool_calls answered by role "tool" messages, usage with
//              prompt_tokens_details.cached_tokens (GPT-4.1, GPT-5, GPT-4o).
// claude-code: Claude Code transcript lines: one line per content block,
//              chained by parentUuid, every line of a response repeating its
//              requestId and usage, with file-history-snapshot lines (now and
//              then a big one) in between.
//
// --split makes --out a directory with one <session id>.jsonl per session,
// written one session at a time: the layout of ~/.claude/projects/<project>/.
//
// --ascii escapes every non-ASCII character as \uXXXX (surrogate pairs above

#include "gen/generator.hpp"
#include "gen/json_out.hpp"

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>

namespace {

using cachewise::gen::Format;
using cachewise::gen::GenOptions;
using cachewise::gen::GenStats;
using Clock = std::chrono::steady_clock;

void
usage_and_exit(int code)
{
    std::fputs(
        "usage: cachewise_gen_log --out FILE --size-mb N [--sessions K] [--seed S]\n"
        "                         [--format exchange|claude-code|openai] [--ascii] [--split]\n"
        "  --out FILE       where to write (\"-\" for standard output)\n"
        "  --size-mb N      stop once N MB (N x 1,000,000 bytes) are written\n"
        "  --sessions K     sessions interleaved at any time (default 4)\n"
        "  --seed S         PRNG seed; the output is a function of it (default 1)\n"
        "  --format F       exchange (default), claude-code or openai (Chat Completions)\n"
        "  --ascii          escape non-ASCII characters as \\uXXXX\n"
        "  --split          --out is a directory: one FILE per session, <session id>.jsonl\n"
        "                   (how Claude Code keeps transcripts); sessions are not interleaved\n",
        code == 0 ? stdout : stderr);
    std::exit(code);
}

std::uint64_t
parse_number(const char* flag, const char* text)
{
    char* end = nullptr;
    errno = 0;
    const double v = std::strtod(text, &end);
    if (errno != 0 || end == text || *end != '\0' || !(v >= 0) || v > 1e12) {
        std::fprintf(stderr, "cachewise_gen_log: %s: not a number: %s\n", flag, text);
        std::exit(2);
    }
    return static_cast<std::uint64_t>(v);
}

// The command line, checked: a bad value exits 2 with a message.
struct Args {
    std::string out_path;
    double size_mb = -1;
    std::uint64_t sessions = 4;
    std::uint64_t seed = 1;
    Format format = Format::exchange;
    bool ascii = false;
    bool split = false;
};

[[noreturn]] void
fail(const char* message)
{
    std::fprintf(stderr, "cachewise_gen_log: %s\n", message);
    std::exit(2);
}

double
parse_size_mb(const char* v)
{
    char* end = nullptr;
    const double size_mb = std::strtod(v, &end);
    if (end == v || *end != '\0' || !(size_mb > 0)) {
        std::fprintf(stderr, "cachewise_gen_log: --size-mb: expected a positive number: %s\n", v);
        std::exit(2);
    }
    return size_mb;
}

Format
parse_format(std::string_view f)
{
    if (f == "claude-code") {
        return Format::claude_code;
    }
    if (f == "openai") {
        return Format::openai;
    }
    if (f != "exchange") {
        fail("--format: expected exchange, claude-code or openai");
    }
    return Format::exchange;
}

Args
parse_args(int argc, char** argv)
{
    Args args;
    for (int i = 1; i < argc; ++i) {
        const std::string_view a = argv[i];
        const auto value = [&]() -> const char* {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "cachewise_gen_log: %s needs a value\n", argv[i]);
                std::exit(2);
            }
            return argv[++i];
        };
        if (a == "--out") {
            args.out_path = value();
        } else if (a == "--size-mb") {
            args.size_mb = parse_size_mb(value());
        } else if (a == "--sessions") {
            args.sessions = parse_number("--sessions", value());
        } else if (a == "--seed") {
            args.seed = parse_number("--seed", value());
        } else if (a == "--format") {
            args.format = parse_format(value());
        } else if (a == "--ascii") {
            args.ascii = true;
        } else if (a == "--split") {
            args.split = true;
        } else if (a == "-h" || a == "--help") {
            usage_and_exit(0);
        } else {
            std::fprintf(stderr, "cachewise_gen_log: unknown argument: %s\n", argv[i]);
            usage_and_exit(2);
        }
    }
    if (args.out_path.empty() || args.size_mb <= 0) {
        usage_and_exit(2);
    }
    if (args.sessions == 0) {
        fail("--sessions must be at least 1");
    }
    if (args.split && args.out_path == "-") {
        fail("--split needs a directory for --out");
    }
    if (args.format == Format::openai && args.split) {
        fail("--split goes with --format claude-code");
    }
    return args;
}

void
report(const GenStats& stats, const Args& args, Clock::time_point t0)
{
    const double secs = std::chrono::duration<double>(Clock::now() - t0).count();
    std::fprintf(
        stderr,
        "cachewise_gen_log: wrote %s: %llu bytes, %llu lines, %llu requests, %llu sessions "
        "(%s, seed %llu) in %.2f s (%.0f MB/s)\n",
        args.out_path.c_str(), static_cast<unsigned long long>(stats.written),
        static_cast<unsigned long long>(stats.lines),
        static_cast<unsigned long long>(stats.requests),
        static_cast<unsigned long long>(stats.sessions),
        std::string(cachewise::gen::to_string(args.format)).c_str(),
        static_cast<unsigned long long>(args.seed), secs,
        static_cast<double>(stats.written) / 1e6 / secs);
}

// --split: one file per session under the --out directory.
int
write_split(const Args& args, const GenOptions& options, Clock::time_point t0)
{
    std::error_code ec;
    std::filesystem::create_directories(args.out_path, ec);
    if (ec) {
        std::fprintf(stderr, "cachewise_gen_log: %s: %s\n", args.out_path.c_str(),
                     ec.message().c_str());
        return 1;
    }
    GenStats stats;
    try {
        stats = cachewise::gen::generate_split(args.out_path, options);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "cachewise_gen_log: %s\n", e.what());
        return 1;
    }
    report(stats, args, t0);
    return 0;
}

// One file (or standard output) with the sessions interleaved.
int
write_one(const Args& args, const GenOptions& options, Clock::time_point t0)
{
    const bool to_stdout = args.out_path == "-";
    std::FILE* out = to_stdout ? stdout : std::fopen(args.out_path.c_str(), "wb");
    if (out == nullptr) {
        std::fprintf(stderr, "cachewise_gen_log: %s: %s\n", args.out_path.c_str(),
                     std::strerror(errno));
        return 1;
    }
    GenStats stats;
    try {
        stats = cachewise::gen::generate(out, options);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "cachewise_gen_log: %s: %s\n", args.out_path.c_str(), e.what());
        return 1;
    }
    if ((!to_stdout && std::fclose(out) != 0) || (to_stdout && std::fflush(out) != 0)) {
        std::fprintf(stderr, "cachewise_gen_log: %s: %s\n", args.out_path.c_str(),
                     std::strerror(errno));
        return 1;
    }
    report(stats, args, t0);
    return 0;
}

} // namespace

int
main(int argc, char** argv)
{
    const Args args = parse_args(argc, argv);
    const auto t0 = Clock::now();
    cachewise::gen::set_ascii_output(args.ascii);
    GenOptions options;
    options.format = args.format;
    options.seed = args.seed;
    options.target_bytes = static_cast<std::uint64_t>(args.size_mb * 1e6);
    options.sessions = static_cast<std::size_t>(args.sessions);
    return args.split ? write_split(args, options, t0) : write_one(args, options, t0);
}
