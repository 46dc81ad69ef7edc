#include "cli/options.hpp"
#include "cli/validators.hpp"
#include "prefill/flop_model.hpp"
#include "prefill/gpu_bench.hpp"
#include "prefill/modelled.hpp"
#include "report/bench_printer.hpp"
#include "util/atomic_file.hpp"
#include "util/error.hpp"
#include "util/format.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

namespace cachewise::cli {

namespace {

// "512,1k,4k,16k" (k = 1,024).
constexpr long long k_max_tokens = 1LL << 22; // 4,194,304 tokens: 4096k

std::vector<int>
parse_tokens(const std::string& text)
{
    std::vector<int> out;
    std::stringstream ss(text);
    std::string item;
    while (std::getline(ss, item, ',')) {
        std::size_t used = 0;
        long long value = 0;
        try {
            value = std::stoll(item, &used);
        } catch (const std::exception&) {
            throw Error(fmt::format("--tokens: \"{}\" is not a number such as 512 or 4k", item));
        }
        const std::string suffix = item.substr(used);
        if (suffix == "k" || suffix == "K") {
            value = value > k_max_tokens ? value : value * 1024; // no overflow: out of range
        } else if (!suffix.empty()) {
            throw Error(fmt::format("--tokens: \"{}\": unknown suffix \"{}\"", item, suffix));
        }
        if (value <= 0 || value > k_max_tokens) {
            throw Error(fmt::format("--tokens: \"{}\" is out of range (1 to {}, or 4096k)", item,
                                    group_count(k_max_tokens)));
        }
        out.push_back(static_cast<int>(value));
    }
    if (out.empty()) {
        throw Error("--tokens: no lengths given");
    }
    return out;
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

namespace {

// The benchmark's settings, checked before anything runs.
struct BenchPlan {
    std::shared_ptr<const ruleset::Rules> rules;
    const ruleset::ModelShape* model = nullptr;
    const ruleset::GpuSpec* gpu = nullptr; // --gpu, else none
    std::vector<int> tokens;
    bool bf16 = true;
    report::Format format = report::Format::text;
};

BenchPlan
plan_bench(const Settings& global, const BenchCliOptions& options)
{
    BenchPlan plan;
    plan.format = global.format.value;
    plan.rules = global.load_rules();
    plan.model = plan.rules->find_model(options.model);
    if (plan.model == nullptr) {
        std::string known;
        for (const auto& m : plan.rules->models) {
            known += (known.empty() ? "" : ", ") + m.id;
        }
        throw Error(fmt::format("--model: unknown model \"{}\" (known: {})", options.model, known));
    }
    if (options.gpu) {
        plan.gpu = plan.rules->find_gpu(*options.gpu);
        if (plan.gpu == nullptr) {
            throw Error(
                fmt::format("--gpu: unknown GPU \"{}\" (see rules/gpus.json)", *options.gpu));
        }
    }
    if (options.layers < 1 || options.repeats < 1) {
        throw Error("--layers and --repeats must be at least 1");
    }
    plan.tokens = parse_tokens(options.tokens);
    plan.bf16 = options.dtype == "bf16";
    return plan;
}

double
peak_of(const ruleset::GpuSpec& gpu, bool bf16)
{
    return bf16 ? gpu.bf16_tflops : gpu.fp16_tflops;
}

// The measured profile, or the modelled one when no GPU can run it and
// --gpu names one; `skipped` says why there is neither.
struct BenchRun {
    prefill::BenchResult result;
    std::optional<std::string> skipped;
};

BenchRun
run_bench(const BenchPlan& plan, const BenchCliOptions& options)
{
    BenchRun run;
    auto& result = run.result;
    if (prefill::gpu_module_built()) {
        prefill::BenchRequest request;
        request.model = *plan.model;
        request.tokens = plan.tokens;
        request.bf16 = plan.bf16;
        request.layers = options.layers;
        request.repeats = options.repeats;
        request.peak_tflops = plan.gpu ? peak_of(*plan.gpu, plan.bf16) : 0;
        auto outcome = prefill::run_gpu_bench(request);
        if (outcome.status == prefill::BenchOutcome::Status::failed) {
            throw Error(fmt::format("bench prefill: {}", outcome.message), ExitCode::findings);
        }
        if (outcome.status == prefill::BenchOutcome::Status::ok) {
            result.profile = std::move(outcome.profile);
        } else if (plan.gpu == nullptr) {
            run.skipped = outcome.message;
            return run;
        }
    } else if (plan.gpu == nullptr) {
        run.skipped =
            "this build has no CUDA benchmark (give --gpu NAME for the modelled estimate)";
        return run;
    }
    if (!result.profile.measured) {
        const double utilization = plan.rules->assumed_utilization.value;
        result.profile =
            prefill::modelled_profile(*plan.model, *plan.gpu, plan.bf16, utilization, plan.tokens);
        result.assumption = prefill::BenchResult::Assumption{utilization, plan.gpu->id,
                                                             peak_of(*plan.gpu, plan.bf16)};
    }
    const prefill::FlopModel flops(*plan.model);
    for (const auto& point : result.profile.points) {
        result.model_flops.push_back(flops.flops(point.tokens));
    }
    return run;
}

} // namespace

int
run_bench_prefill(const Settings& global, const BenchCliOptions& options)
{
    const auto plan = plan_bench(global, options);
    const auto run = run_bench(plan, options);
    if (run.skipped) {
        report::print_bench_skipped(*run.skipped, std::cerr);
        return static_cast<int>(ExitCode::skipped);
    }
    report::print_bench(run.result, plan.format, std::cout);
    if (options.out) {
        value_or_throw(write_file_atomically(*options.out, run.result.profile.to_json() + "\n"),
                       "--out");
    }
    return 0;
}

} // namespace cachewise::cli
