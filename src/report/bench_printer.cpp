#include "report/bench_printer.hpp"

#include "report/request_json.hpp"
#include "report/text_table.hpp"
#include "util/error.hpp"
#include "util/format.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <nlohmann/json.hpp>

#include <ostream>

namespace cachewise::report {

namespace {

// One row per length; "TFLOP/model" is F(n), what a cached prefix of n
// tokens saves (the FLOP model, the same for a measured run).
void
print_text(const prefill::BenchResult& result, std::ostream& out)
{
    const auto& p = result.profile;
    fmt::print(out, "{} prefill of {} ({}, {}) on {}{}\n",
               p.measured ? "measured" : "modelled, not measured:", p.model, p.dtype,
               count_noun(static_cast<std::uint64_t>(p.model_layers), "layer"), p.gpu,
               p.driver.empty() ? "" : " (driver " + p.driver + ")");
    // 4M tokens ("4,194,304") is wider than the heading: the columns widen.
    TextTable table(">8  >12  >12  >12  >12  >10  >8  >12");
    table.add_row({"tokens", "s/layer", "s/model", "proj s/layer", "attn s/layer", "TFLOP/s",
                   "of peak", "TFLOP/model"});
    for (std::size_t i = 0; i < p.points.size(); ++i) {
        const auto& x = p.points[i];
        table.add_row({group_count(x.tokens), fmt::format("{:.6f}", x.seconds_per_layer),
                       fmt::format("{:.4f}", x.seconds_per_layer * p.model_layers),
                       fmt::format("{:.6f}", x.projection_seconds),
                       fmt::format("{:.6f}", x.attention_seconds), fmt::format("{:.1f}", x.tflops),
                       format_percent(x.fraction_of_peak),
                       fmt::format("{:.1f}", result.model_flops[i] / 1e12)});
    }
    table.print(out);
    fmt::print(out, "  fit: seconds per layer = {:.4g} + {:.4g}·n + {:.4g}·n²\n", p.fit_c, p.fit_a,
               p.fit_b);
    if (result.assumption) {
        const auto& a = *result.assumption;
        fmt::print(out,
                   "  modelled at {} of the {} dense {} peak ({} TFLOP/s): an assumption "
                   "(rules/gpus.json), not a measurement\n",
                   format_percent(a.utilization), a.gpu, p.dtype, a.peak_tflops);
    }
}

void
print_json(const prefill::BenchResult& result, std::ostream& out)
{
    nlohmann::ordered_json j = json_document("bench prefill");
    auto profile = nlohmann::ordered_json::parse(result.profile.to_json());
    for (std::size_t i = 0; i < result.model_flops.size(); ++i) {
        profile["points"][i]["model_flops"] = result.model_flops[i];
    }
    j["profile"] = profile;
    if (result.assumption) {
        j["assumption"] = {{"utilization", result.assumption->utilization},
                           {"gpu", result.assumption->gpu},
                           {"peak_tflops", result.assumption->peak_tflops},
                           {"source", "rules/gpus.json"}};
    } else {
        j["assumption"] = nullptr;
    }
    out << j.dump(2) << '\n';
}

} // namespace

void
print_bench_skipped(const std::string& reason, std::ostream& err)
{
    fmt::print(err, "cachewise: bench prefill skipped: {}\n", reason);
}

void
print_bench(const prefill::BenchResult& result, Format format, std::ostream& out)
{
    // The settings' format table lets bench choose text or json only.
    switch (format) {
    case Format::text:
        print_text(result, out);
        return;
    case Format::json:
        print_json(result, out);
        return;
    default:
        throw Error(
            fmt::format("--format {}: bench prefill prints text or json", to_string(format)));
    }
}

} // namespace cachewise::report
