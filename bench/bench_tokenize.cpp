// Single-thread throughput of the exact tokenizers on English prose and on
// source code (the goal: at least 30 MB/s per core on each), with
// the time to load each vocabulary and the memory its tables hold.
//   cachewise_bench_tokenize [--mb N] [--repeat R] [--file PATH] [--loads L]
//                            [--only NAME]
// Text is synthetic and deterministic (splitmix64 over word and line
// lists); --file times a file of your own instead. --loads L loads each
// vocabulary L times more, each time from a new catalogue as a command
// does (mapping, SHA-256, parsing, tables), and prints the best wall and CPU
// time of one load in milliseconds.
#include "tokenize/catalogue.hpp"
#include "util/file.hpp"
#include "util/splitmix.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <string>
#include <string_view>
#include <vector>

using namespace cachewise;

namespace {

std::string
english(std::size_t bytes, std::uint64_t seed)
{
    static const std::vector<std::string_view> words = {
        "the",     "of",      "and",          "to",         "in",        "is",      "was",
        "for",     "that",    "with",         "as",         "on",        "cache",   "prompt",
        "tokens",  "request", "model",        "prefix",     "Anthropic", "OpenAI",  "however,",
        "because", "it's",    "they're",      "throughput", "measured",  "per",     "core.",
        "When",    "a",       "conversation", "grows,",     "every",     "turn",    "resends",
        "its",     "history", "(which",       "costs)",     "money;",    "latency", "matters",
        "too.",    "2026",    "128-token",    "steps"};
    SplitMix64 rng(seed);
    std::string out;
    while (out.size() < bytes) {
        const auto n = 8 + rng.next() % 20;
        for (std::uint64_t i = 0; i < n; ++i) {
            out += words[rng.next() % words.size()];
            out += ' ';
        }
        out += rng.next() % 4 == 0 ? "\n\n" : "\n";
    }
    return out;
}

std::string
source_code(std::size_t bytes, std::uint64_t seed)
{
    static const std::vector<std::string_view> lines = {
        "    for (std::size_t i = 0; i < segments.size(); ++i) {\n",
        "        const auto& s = segments[i];\n",
        "        if (s.cache_control && s.tokens >= minimum) { return i; }\n",
        "    }\n",
        "def tokens(text: str) -> int:\n",
        "    return len(encoder.encode(text, disallowed_special=()))\n",
        "\n",
        "    const response = await fetch(`${base}/v1/messages`, {method: 'POST'});\n",
        "\t\tif err != nil {\n\t\t\treturn nil, fmt.Errorf(\"read %s: %w\", path, err)\n\t\t}\n",
        "  \"usage\": {\"input_tokens\": 1234, \"cache_read_input_tokens\": 56789},\n",
        "// Comments say why, not what: the prefix must stay byte-identical.\n"};
    SplitMix64 rng(seed);
    std::string out;
    while (out.size() < bytes) {
        out += lines[rng.next() % lines.size()];
    }
    return out;
}

double
seconds_since(std::chrono::steady_clock::time_point start)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

double
cpu_seconds()
{
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// Best wall and CPU time of `loads` loads of `entry`, each from a new
// catalogue, in milliseconds; the CPU time is the process's (one thread).
std::pair<double, double>
time_loads(const std::string& dir, const tokenize::TokenizerEntry& entry, int loads)
{
    double wall = 1e30;
    double cpu = 1e30;
    for (int i = 0; i < loads; ++i) {
        auto fresh = tokenize::Catalogue::load(dir, std::nullopt);
        const auto start = std::chrono::steady_clock::now();
        const double cpu_start = cpu_seconds();
        if (!fresh || !fresh->tokenizer(entry)) {
            return {0, 0};
        }
        cpu = std::min(cpu, cpu_seconds() - cpu_start);
        wall = std::min(wall, seconds_since(start));
    }
    return {wall * 1e3, cpu * 1e3};
}

} // namespace

int
main(int argc, char** argv)
{
    std::size_t mb = 20;
    int repeat = 3;
    int loads = 0;
    std::string file;
    std::string only;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string_view a = argv[i];
        if (a == "--mb") {
            mb = std::strtoull(argv[i + 1], nullptr, 10);
        } else if (a == "--repeat") {
            repeat = std::atoi(argv[i + 1]);
        } else if (a == "--only") {
            only = argv[i + 1];
        } else if (a == "--loads") {
            loads = std::atoi(argv[i + 1]);
        } else if (a == "--file") {
            file = argv[i + 1];
        }
    }
    const std::string dir = tokenize::find_tokenizer_dir(std::nullopt);
    auto catalogue = tokenize::Catalogue::load(dir, std::nullopt);
    if (!catalogue) {
        fmt::print(stderr, "{}\n", catalogue.error());
        return 2;
    }
    std::vector<std::pair<std::string, std::string>> texts;
    if (!file.empty()) {
        texts.emplace_back(file, read_file(file).value_or(""));
    } else {
        texts.emplace_back("english", english(mb << 20, 1));
        texts.emplace_back("code", source_code(mb << 20, 2));
    }
    for (const auto& entry : catalogue->entries()) {
        if (!entry.shipped || (!only.empty() && entry.name != only)) {
            continue;
        }
        const auto load_start = std::chrono::steady_clock::now();
        auto t = catalogue->tokenizer(entry);
        if (!t) {
            fmt::print(stderr, "{}\n", t.error());
            return 2;
        }
        const double load = seconds_since(load_start);
        fmt::print("{:<12} load {:.2f} s, tables {:.1f} MiB\n", entry.name, load,
                   static_cast<double>((*t)->vocabulary().memory_bytes()) / (1 << 20));
        if (loads > 0) {
            const auto [wall_ms, cpu_ms] = time_loads(dir, entry, loads);
            fmt::print("  load     {:>6.1f} ms wall, {:.1f} ms CPU (best of {})\n", wall_ms, cpu_ms,
                       loads);
        }
        for (const auto& [label, text] : texts) {
            double best = 1e30;
            std::size_t count = 0;
            for (int r = 0; r < repeat; ++r) {
                const auto start = std::chrono::steady_clock::now();
                count = (*t)->count(text);
                best = std::min(best, seconds_since(start));
            }
            fmt::print("  {:<8} {:>6.1f} MB/s  ({} bytes, {} tokens, best of {})\n", label,
                       static_cast<double>(text.size()) / 1e6 / best, text.size(), count, repeat);
        }
    }
    return 0;
}
