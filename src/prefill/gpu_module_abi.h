#pragma once

// The C interface between cachewise and its CUDA module (cuda/, built as
// cachewise-cuda.so and loaded with dlopen by `bench prefill` only, so that
// no other command maps the CUDA runtime or cuBLAS). Plain C types: nothing
// of the C++ standard library crosses it, no exception either. The module
// only times what it is given; FLOPs, rates and the fit stay on this side
// (prefill::FlopModel), so a measured and a modelled row count the same work.

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// Bumped whenever a struct below changes; the module refuses another value.
#define CACHEWISE_GPU_MODULE_ABI 1
// The one symbol the module exports.
#define CACHEWISE_GPU_MODULE_ENTRY "cachewise_gpu_bench_v1"

// One projection of a layer: activations [n x in] times weights [in x out].
struct cw_gemm_shape {
    int32_t in;
    int32_t out;
};

struct cw_gpu_bench_request {
    uint32_t abi; // CACHEWISE_GPU_MODULE_ABI
    const struct cw_gemm_shape* gemms;
    uint32_t gemm_count;
    int32_t heads; // causal attention, grouped KV heads
    int32_t kv_heads;
    int32_t head_dim;
    const int32_t* tokens; // prompt lengths, one result point each
    uint32_t token_count;
    int32_t bf16; // else fp16
    int32_t layers;
    int32_t repeats;
};

// Median seconds of one layer's projections and attention at one length.
struct cw_gpu_bench_point {
    double projection_seconds;
    double attention_seconds;
};

enum cw_gpu_bench_status {
    CW_GPU_BENCH_OK = 0,
    CW_GPU_BENCH_NO_DEVICE = 1, // no driver or no device: nothing was measured
    CW_GPU_BENCH_FAILED = 2,    // a CUDA or cuBLAS call failed, or the correctness gate
};

struct cw_gpu_bench_result {
    int32_t status; // enum cw_gpu_bench_status
    char message[512];
    char gpu[256];
    char driver[32];
    double max_relative_error;         // of the correctness gate
    struct cw_gpu_bench_point* points; // token_count entries, owned by the caller
};

typedef void (*cw_gpu_bench_fn)(const struct cw_gpu_bench_request* request,
                                struct cw_gpu_bench_result* result);

#ifdef __cplusplus
}
#endif
