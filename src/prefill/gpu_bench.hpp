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
    // unavailable: no CUDA module (not built, not found, or its CUDA runtime
    // is missing), no driver or no device; failed: a CUDA call or the
    // correctness gate failed.
    enum class Status { ok, unavailable, failed } status = Status::failed;
    std::string message; // why not ok
    Profile profile;
};

// Whether this build made the CUDA module (cuda/, CACHEWISE_HAVE_CUDA).
bool gpu_module_built();

// Loads the CUDA module (cachewise-cuda.so next to the binary, else in
// ../lib/cachewise beside it, else in the installed library folder) on first use, runs the
// benchmark in it and builds the profile: the rates count prefill::FlopModel's FLOPs, as the
// modelled profile does.
BenchOutcome run_gpu_bench(const BenchRequest& request);

} // namespace cachewise::prefill
