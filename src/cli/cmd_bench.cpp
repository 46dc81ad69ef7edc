#include "cli/options.hpp"
#include "cli/validators.hpp"
#include "prefill/flop_model.hpp"
#include "prefill/gpu_bench.hpp"
#include "prefill/modelled.hpp"
#include "util/atomic_file.hpp"
#include "util/error.hpp"
#include "util/format.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <fstream>
#include <iostream>
#include <sstream>

namespace cachewise::cli {

namespace {

// "512,1k,4k,16k" (k = 1,024).
std::vector<int>
parse_tokens(const std::string& text)
{
    std::vector<int> out;
    std::stringstream ss(text);
    std::string item;
    while (std::getline(ss, item, ',')) {
        std::size_t used = 0;
        int value = 0;
        try {
            value = std::stoi(item, &used);
        } catch (const std::exception&) {
            throw Error(fmt::format("--tokens: \"{}\" is not a number such as 512 or 4k", item));
        }
        const std::string suffix = item.substr(used);
        if (suffix == "k" || suffix == "K") {
            value *= 1024;
        } else if (!suffix.empty()) {
            throw Error(fmt::format("--tokens: \"{}\": unknown suffix \"{}\"", item, suffix));
        }
        if (value <= 0 || value > (1 << 22)) {
            throw Error(fmt::format("--tokens: {} is out of range (1 to 4M)", value));
        }
        out.push_back(value);
    }
    if (out.empty()) {
        throw Error("--tokens: no lengths given");
    }
    return out;
}

// One row per length; "TFLOP/model" is F(n), what a cached prefix of n
// tokens saves (the FLOP model, the same for a measured run).
void
print_profile(const prefill::Profile& p, const ruleset::ModelShape& model, std::ostream& out)
{
    const prefill::FlopModel flops(model);
    fmt::print(out, "{} prefill of {} ({}, {} layers) on {}{}\n",
               p.measured ? "measured" : "modelled, not measured:", p.model, p.dtype,
               p.model_layers, p.gpu, p.driver.empty() ? "" : " (driver " + p.driver + ")");
    fmt::print(out, "  {:>8}  {:>12}  {:>12}  {:>12}  {:>12}  {:>10}  {:>8}  {:>12}\n", "tokens",
               "s/layer", "s/model", "proj s/layer", "attn s/layer", "TFLOP/s", "of peak",
               "TFLOP/model");
    for (const auto& x : p.points) {
        fmt::print(out,
                   "  {:>8}  {:>12.6f}  {:>12.4f}  {:>12.6f}  {:>12.6f}  {:>10.1f}  {:>7.1f}%  "
                   "{:>12.1f}\n",
                   static_cast<long long>(x.tokens), x.seconds_per_layer,
                   x.seconds_per_layer * p.model_layers, x.projection_seconds, x.attention_seconds,
                   x.tflops, 100 * x.fraction_of_peak,
                   flops.flops(static_cast<double>(x.tokens)) / 1e12);
    }
    fmt::print(out, "  fit: seconds per layer = {:.4g} + {:.4g}·n + {:.4g}·n²\n", p.fit_c, p.fit_a,
               p.fit_b);
}

} // namespace

void
add_bench_command(CLI::App& app, BenchCliOptions& options)
{
    auto* bench = app.add_subcommand("bench", "Benchmarks of what caching saves");
    bench->require_subcommand(1);
    auto* prefill = bench->add_subcommand(
        "prefill",
        "Measure one transformer layer's prefill on the GPU (or model it with --gpu and no GPU)");
    prefill
        ->add_option("--model", options.model,
                     "An open model of rules/models.json (id or Hugging Face name)")
        ->required()
        ->type_name("M");
    prefill->add_option("--tokens", options.tokens, "Prompt lengths (default 512,1k,4k,16k,32k)")
        ->type_name("N,...");
    prefill->add_option("--dtype", options.dtype, "bf16 or fp16 (default bf16)")
        ->check(one_of({"bf16", "fp16"}))
        ->type_name("TYPE");
    prefill->add_option("--layers", options.layers, "Layers run per measurement (default 1)")
        ->type_name("K");
    prefill
        ->add_option("--repeats", options.repeats,
                     "Timed repeats per length; the median is kept (default 10)")
        ->type_name("R");
    prefill
        ->add_option("--gpu", options.gpu,
                     "A GPU of rules/gpus.json: its peak for the fraction of peak, and the "
                     "modelled estimate "
                     "when no GPU is present")
        ->type_name("NAME");
    prefill->add_option("--out", options.out, "Write the profile JSON here")->type_name("FILE");
}

int
run_bench_prefill(const Settings& global, const BenchCliOptions& options)
{
    const auto rules = global.load_rules();
    const auto* model = rules->find_model(options.model);
    if (model == nullptr) {
        std::string known;
        for (const auto& m : rules->models) {
            known += (known.empty() ? "" : ", ") + m.id;
        }
        throw Error(fmt::format("--model: unknown model \"{}\" (known: {})", options.model, known));
    }
    const ruleset::GpuSpec* gpu = nullptr;
    if (options.gpu) {
        gpu = rules->find_gpu(*options.gpu);
        if (gpu == nullptr) {
            throw Error(
                fmt::format("--gpu: unknown GPU \"{}\" (see rules/gpus.json)", *options.gpu));
        }
    }
    if (options.layers < 1 || options.repeats < 1) {
        throw Error("--layers and --repeats must be at least 1");
    }
    const auto tokens = parse_tokens(options.tokens);
    const bool bf16 = options.dtype == "bf16";

    prefill::Profile profile;
    bool have = false;
    if (const auto run = prefill::gpu_bench()) {
        prefill::BenchRequest request;
        request.model = *model;
        request.tokens = tokens;
        request.bf16 = bf16;
        request.layers = options.layers;
        request.repeats = options.repeats;
        request.peak_tflops = gpu ? (bf16 ? gpu->bf16_tflops : gpu->fp16_tflops) : 0;
        const auto outcome = run(request);
        if (outcome.status == prefill::BenchOutcome::Status::ok) {
            profile = outcome.profile;
            have = true;
        } else if (outcome.status == prefill::BenchOutcome::Status::failed) {
            throw Error(fmt::format("bench prefill: {}", outcome.message), ExitCode::findings);
        } else if (gpu == nullptr) {
            fmt::print(stderr, "cachewise: bench prefill skipped: {}\n", outcome.message);
            return static_cast<int>(ExitCode::skipped);
        }
    } else if (gpu == nullptr) {
        fmt::print(stderr, "cachewise: bench prefill skipped: this build has no CUDA benchmark "
                           "(give --gpu NAME for "
                           "the modelled estimate)\n");
        return static_cast<int>(ExitCode::skipped);
    }
    if (!have) {
        profile =
            prefill::modelled_profile(*model, *gpu, bf16, rules->assumed_utilization.value, tokens);
    }
    print_profile(profile, *model, std::cout);
    if (!profile.measured) {
        fmt::print("  modelled at {:.0f}% of the {} dense {} peak ({} TFLOP/s): an assumption "
                   "(rules/gpus.json), not "
                   "a measurement\n",
                   100 * rules->assumed_utilization.value, gpu->id, bf16 ? "bf16" : "fp16",
                   bf16 ? gpu->bf16_tflops : gpu->fp16_tflops);
    }
    if (options.out) {
        value_or_throw(write_file_atomically(*options.out, profile.to_json() + "\n"), "--out");
    }
    return 0;
}

} // namespace cachewise::cli
