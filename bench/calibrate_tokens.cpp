// cachewise_calibrate: how far the token estimator is from reported usage.
//
//   cachewise_calibrate LOG... [--rules DIR]
//
// For every request whose whole prompt is logged and whose response reports
// usage, compares the sum of the uncalibrated segment estimates with the
// reported total input (read + write + fresh). Prints one line per request
// and the distribution of the relative error; rules/tokens.json's ratios
// and error_band_percent are fitted with it.

#include "ingest/loader.hpp"
#include "ruleset/rules.hpp"
#include "util/error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

int
main(int argc, char** argv)
{
    std::vector<std::string> inputs;
    std::optional<std::string> rules_dir;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--rules" && i + 1 < argc) {
            rules_dir = argv[++i];
        } else if (arg == "-h" || arg == "--help") {
            fmt::print("usage: cachewise_calibrate LOG... [--rules DIR]\n");
            return 0;
        } else {
            inputs.push_back(arg);
        }
    }
    if (inputs.empty()) {
        fmt::print(stderr, "usage: cachewise_calibrate LOG... [--rules DIR]\n");
        return 2;
    }
    try {
        const auto rules = cachewise::ruleset::load_rules(rules_dir);
        cachewise::ingest::Loader loader(*rules, {});
        std::vector<double> errors; // (estimate - reported) / reported
        fmt::print("{:>10}  {:>10}  {:>7}  {}\n", "estimate", "reported", "error", "request");
        const auto summary = loader.load(inputs, [&](cachewise::model::Request&& r) {
            if (!r.prompt_logged || !r.usage || !r.usage->total_input() ||
                *r.usage->total_input() <= 0) {
                return;
            }
            double estimate = 0;
            for (const auto& s : r.segments) {
                if (s.kind == cachewise::model::SegmentKind::unlogged) {
                    return; // part of the prompt is not in the log
                }
                estimate += s.estimate;
            }
            const auto reported = static_cast<double>(*r.usage->total_input());
            const double error = (estimate - reported) / reported;
            errors.push_back(error);
            fmt::print("{:>10.0f}  {:>10.0f}  {:>+6.1f}%  {} ({})\n", estimate, reported,
                       100 * error, r.id, r.model);
        });
        if (errors.empty()) {
            fmt::print(stderr, "no request with a logged prompt and reported usage ({} read)\n",
                       summary.requests);
            return 2;
        }
        std::vector<double> magnitudes;
        for (double e : errors) {
            magnitudes.push_back(std::abs(e));
        }
        std::sort(errors.begin(), errors.end());
        std::sort(magnitudes.begin(), magnitudes.end());
        const auto at = [](const std::vector<double>& v, double q) {
            return v[std::min(v.size() - 1,
                              static_cast<std::size_t>(q * static_cast<double>(v.size())))];
        };
        fmt::print(
            "\n{} requests: median error {:+.1f}%, median |error| {:.1f}%, p90 |error| {:.1f}%, "
            "max |error| {:.1f}%\n",
            errors.size(), 100 * at(errors, 0.5), 100 * at(magnitudes, 0.5),
            100 * at(magnitudes, 0.9), 100 * magnitudes.back());
    } catch (const cachewise::Error& e) {
        fmt::print(stderr, "cachewise_calibrate: error: {}\n", e.what());
        return 2;
    }
    return 0;
}
