#include "prefill/gpu_bench.hpp"

namespace cachewise::prefill {

namespace {

GpuBenchFunction&
slot()
{
    static GpuBenchFunction function = nullptr;
    return function;
}

} // namespace

void
register_gpu_bench(GpuBenchFunction function)
{
    slot() = function;
}

GpuBenchFunction
gpu_bench()
{
    return slot();
}

} // namespace cachewise::prefill
