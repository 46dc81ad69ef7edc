// Registers the CUDA benchmark with the core library at start-up.

#include "prefill/gpu_bench.hpp"

namespace cachewise::cuda {
prefill::BenchOutcome run_prefill_bench(const prefill::BenchRequest& request);
} // namespace cachewise::cuda

namespace {

const bool k_registered = [] {
    cachewise::prefill::register_gpu_bench(&cachewise::cuda::run_prefill_bench);
    return true;
}();

} // namespace
