#pragma once

#include "prefill/profile.hpp"
#include "ruleset/rules.hpp"

#include <string>
#include <vector>

namespace cachewise::prefill {

struct BenchRequest {
    ruleset::ModelShape model;
    std::vector<int> tokens;
    bool bf16 = true; // else fp16
    int layers = 1;   // layers run per measurement
    int repeats = 10;
    double peak_tflops = 0; // of the GPU, when known (for fraction_of_peak)
};

struct BenchOutcome {
    enum class Status { ok, no_device, failed } status = Status::failed;
    std::string message; // why not ok
    Profile profile;
};

// The CUDA benchmark registers itself here when it is built in (cuda/);
// without it, `cachewise bench prefill` falls back to the FLOP model.
using GpuBenchFunction = BenchOutcome (*)(const BenchRequest&);
void register_gpu_bench(GpuBenchFunction function);
GpuBenchFunction gpu_bench(); // nullptr when not built in

} // namespace cachewise::prefill
