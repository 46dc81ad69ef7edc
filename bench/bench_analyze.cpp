// cachewise_bench_analyze: time of `analyze` (read + segment + chain +
// partners + divergence + prefix tree) against the number of requests.
//
//   cachewise_bench_analyze FILE... [--repeat N]
//
// Prints, per file, the requests, the best wall time and the time per
// request, and for the second and later files the ratio of time to the first
// file's against the ratio of requests: linear growth keeps the two close.

#include "analysis/analyzer.hpp"
#include "ingest/loader.hpp"
#include "ruleset/rules.hpp"
#include "util/error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

int
main(int argc, char** argv)
{
    std::vector<std::string> files;
    int repeat = 3;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--repeat" && i + 1 < argc) {
            repeat = std::max(1, std::stoi(argv[++i]));
        } else {
            files.push_back(arg);
        }
    }
    if (files.empty()) {
        fmt::print(stderr, "usage: cachewise_bench_analyze FILE... [--repeat N]\n");
        return 2;
    }
    try {
        const auto rules = cachewise::ruleset::load_rules(std::nullopt);
        double first_seconds = 0;
        double first_requests = 0;
        fmt::print("{:>10}  {:>8}  {:>9}  {:>11}  {:>10}  {}\n", "requests", "breaks", "best s",
                   "µs/request", "time ratio", "file");
        for (const auto& file : files) {
            double best = 1e300;
            std::size_t requests = 0;
            std::size_t breaks = 0;
            for (int run = 0; run < repeat; ++run) {
                const auto start = std::chrono::steady_clock::now();
                cachewise::model::TextStore texts;
                cachewise::ingest::LoadOptions options;
                options.text_store = &texts;
                cachewise::ingest::Loader loader(*rules, options);
                cachewise::analysis::Analyzer analyzer(*rules, {}, texts);
                loader.load({file},
                            [&](cachewise::model::Request&& r) { analyzer.add(std::move(r)); });
                const auto result = analyzer.finish();
                const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
                best = std::min(best, took.count());
                requests = result.requests;
                breaks = result.breaks;
            }
            std::string ratio = "-";
            if (first_seconds == 0) {
                first_seconds = best;
                first_requests = static_cast<double>(requests);
            } else {
                ratio = fmt::format("{:.2f}x for {:.2f}x requests", best / first_seconds,
                                    static_cast<double>(requests) / first_requests);
            }
            fmt::print("{:>10}  {:>8}  {:>9.3f}  {:>11.1f}  {:>10}  {}\n", requests, breaks, best,
                       1e6 * best / static_cast<double>(std::max<std::size_t>(requests, 1)), ratio,
                       file);
        }
    } catch (const cachewise::Error& e) {
        fmt::print(stderr, "cachewise_bench_analyze: error: {}\n", e.what());
        return 2;
    }
    return 0;
}
