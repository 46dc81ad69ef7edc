// The prefill microbenchmark, the whole of the CUDA module: one transformer
// layer's prefill per length — the projections it is given through
// cuBLASLt, causal attention through our own tiled kernel (online softmax,
// no n x n buffer, GQA) — timed with CUDA events after warm-up, median of
// repeats, on random inputs, after a correctness gate against the CPU
// reference. It returns seconds only; cachewise counts the FLOPs.

#include "cuda/cuda_check.hpp"
#include "cuda/handles.hpp"
#include "cuda/matmul_plan.hpp"
#include "prefill/attention_cpu.hpp"
#include "prefill/attention_tile.hpp"
#include "prefill/gpu_module_abi.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <random>
#include <string>
#include <vector>

namespace cachewise::cuda {

namespace {

constexpr int k_query_block = 64; // query rows per thread block, one per thread
constexpr int k_key_tile = 32;    // key rows staged in shared memory per step

template <typename T> __device__ __host__ inline float to_float(T x);
template <>
__device__ __host__ inline float
to_float(__nv_bfloat16 x)
{
    return __bfloat162float(x);
}
template <>
__device__ __host__ inline float
to_float(__half x)
{
    return __half2float(x);
}
template <typename T> __device__ __host__ inline T from_float(float x);
template <>
__device__ __host__ inline __nv_bfloat16
from_float(float x)
{
    return __float2bfloat16(x);
}
template <>
__device__ __host__ inline __half
from_float(float x)
{
    return __float2half(x);
}

// Random values in [-1, 1) from a counter hash: never zeros, no cuRAND.
template <typename T>
__global__ void
fill_random(T* data, std::size_t count, std::uint32_t seed)
{
    for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count;
         i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
        std::uint32_t h = static_cast<std::uint32_t>(i) * 2654435761U ^ seed;
        h ^= h >> 16;
        h *= 0x85ebca6bU;
        h ^= h >> 13;
        const float u = static_cast<float>(h & 0xFFFFFF) / static_cast<float>(0x1000000);
        data[i] = from_float<T>(u * 2.0F - 1.0F + 1.0F / 4096.0F);
    }
}

// Causal attention: grid (query blocks, heads), one thread per query row.
// Key and value tiles are staged in shared memory as floats; each row runs
// the online softmax of prefill/attention_tile.hpp over them.
template <typename T, int MaxDim>
__global__ void
attention_kernel(const T* q, const T* k, const T* v, T* out, int n, int heads, int kv_heads,
                 int dim, float scale)
{
    extern __shared__ float tiles[]; // keys [k_key_tile][dim], then values
    float* key_tile = tiles;
    float* value_tile = tiles + k_key_tile * dim;
    const int head = blockIdx.y;
    const int kv_head = head / (heads / kv_heads);
    const int row = blockIdx.x * k_query_block + threadIdx.x;
    const int last_row = min(n - 1, static_cast<int>((blockIdx.x + 1) * k_query_block - 1));

    float query[MaxDim];
    float acc[MaxDim];
    if (row < n) {
        for (int c = 0; c < dim; ++c) {
            query[c] = to_float(q[(static_cast<std::size_t>(row) * heads + head) * dim + c]);
            acc[c] = 0.0F;
        }
    }
    prefill::RowState state;
    for (int start = 0; start <= last_row; start += k_key_tile) {
        const int len = min(k_key_tile, n - start);
        for (int idx = threadIdx.x; idx < len * dim; idx += blockDim.x) {
            const int j = idx / dim;
            const int c = idx % dim;
            const std::size_t at =
                (static_cast<std::size_t>(start + j) * kv_heads + kv_head) * dim + c;
            key_tile[idx] = to_float(k[at]);
            value_tile[idx] = to_float(v[at]);
        }
        __syncthreads();
        if (row < n) {
            prefill::attend_tile(query, key_tile, value_tile, len, start, row, dim, scale, state,
                                 acc);
        }
        __syncthreads();
    }
    if (row < n) {
        prefill::finish_row(state, dim, acc);
        for (int c = 0; c < dim; ++c) {
            out[(static_cast<std::size_t>(row) * heads + head) * dim + c] = from_float<T>(acc[c]);
        }
    }
}

template <typename T>
void
launch_attention(const T* q, const T* k, const T* v, T* out, int n, int heads, int kv_heads,
                 int dim, cudaStream_t stream)
{
    const dim3 grid((n + k_query_block - 1) / k_query_block, heads);
    const std::size_t shared = 2 * static_cast<std::size_t>(k_key_tile) * dim * sizeof(float);
    const float scale = 1.0F / std::sqrt(static_cast<float>(dim));
    if (dim <= 64) {
        attention_kernel<T, 64>
            <<<grid, k_query_block, shared, stream>>>(q, k, v, out, n, heads, kv_heads, dim, scale);
    } else if (dim <= 128) {
        attention_kernel<T, 128>
            <<<grid, k_query_block, shared, stream>>>(q, k, v, out, n, heads, kv_heads, dim, scale);
    } else {
        attention_kernel<T, 256>
            <<<grid, k_query_block, shared, stream>>>(q, k, v, out, n, heads, kv_heads, dim, scale);
    }
    CW_CUDA_CHECK(cudaGetLastError());
}

template <typename T>
std::vector<T>
to_device_type(const std::vector<float>& values)
{
    std::vector<T> out(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) {
        out[i] = from_float<T>(values[i]);
    }
    return out;
}

template <typename T>
std::vector<float>
to_host_floats(const DeviceBuffer<T>& buffer)
{
    std::vector<T> raw(buffer.count());
    CW_CUDA_CHECK(
        cudaMemcpy(raw.data(), buffer.get(), raw.size() * sizeof(T), cudaMemcpyDeviceToHost));
    std::vector<float> out(raw.size());
    for (std::size_t i = 0; i < out.size(); ++i) {
        out[i] = to_float(raw[i]);
    }
    return out;
}

template <typename T>
DeviceBuffer<T>
upload(const std::vector<float>& values)
{
    DeviceBuffer<T> buffer(values.size());
    const auto host = to_device_type<T>(values);
    CW_CUDA_CHECK(
        cudaMemcpy(buffer.get(), host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
    return buffer;
}

// What every measurement shares: one stream, one cuBLASLt handle, one
// workspace.
struct Context {
    Stream stream;
    LtHandle handle;
    std::size_t workspace_bytes;
    DeviceBuffer<std::uint8_t> workspace;
    cudaDataType_t type;
};

// The correctness gate: the kernel and one GEMM against the CPU reference
// on rounded random inputs, at a small length that is not a multiple of the
// tiles.
template <typename T>
double
check_against_cpu(const cw_gpu_bench_request& req, const Context& ctx)
{
    const int n = 157;
    const int heads = std::min(req.heads, 8);
    const int kv_heads = std::max(1, heads / std::max(1, req.heads / req.kv_heads));
    const int dim = req.head_dim;
    std::mt19937 rng(20261129);
    std::uniform_real_distribution<float> dist(-1.0F, 1.0F);
    const auto random = [&](std::size_t count) {
        std::vector<float> x(count);
        for (auto& value : x) {
            value = to_float(from_float<T>(dist(rng))); // rounded as the GPU sees it
        }
        return x;
    };
    const prefill::AttentionShape shape{n, heads, kv_heads, dim};
    const auto q = random(static_cast<std::size_t>(n) * heads * dim);
    const auto k = random(static_cast<std::size_t>(n) * kv_heads * dim);
    const auto v = random(static_cast<std::size_t>(n) * kv_heads * dim);
    const auto dq = upload<T>(q);
    const auto dk = upload<T>(k);
    const auto dv = upload<T>(v);
    const DeviceBuffer<T> dout(q.size());
    launch_attention(dq.get(), dk.get(), dv.get(), dout.get(), n, heads, kv_heads, dim,
                     ctx.stream.get());
    double worst =
        prefill::relative_error(to_host_floats(dout), prefill::attention_naive(shape, q, k, v));

    // One GEMM: [n x 96] · [96 x 80].
    const int gk = 96;
    const int gn = 80;
    const auto a = random(static_cast<std::size_t>(n) * gk);
    const auto b = random(static_cast<std::size_t>(gk) * gn);
    const auto da = upload<T>(a);
    const auto db = upload<T>(b);
    const DeviceBuffer<T> dc(static_cast<std::size_t>(n) * gn);
    const MatmulPlan plan(ctx.handle.get(), ctx.type, n, gn, gk, ctx.workspace_bytes);
    plan.run(da.get(), db.get(), dc.get(), ctx.workspace.get(), ctx.stream.get());
    std::vector<float> expected(dc.count(), 0.0F);
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < gn; ++j) {
            double sum = 0;
            for (int x = 0; x < gk; ++x) {
                sum += static_cast<double>(a[static_cast<std::size_t>(i) * gk + x]) *
                       b[static_cast<std::size_t>(x) * gn + j];
            }
            expected[static_cast<std::size_t>(i) * gn + j] = static_cast<float>(sum);
        }
    }
    worst = std::max(worst, prefill::relative_error(to_host_floats(dc), expected));
    return worst;
}

double
median(std::vector<double> values)
{
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
}

// The weights and activations of one layer at the longest length, random.
template <typename T> struct LayerBuffers {
    DeviceBuffer<T> activations; // [max_n x widest input]
    DeviceBuffer<T> outputs;     // [max_n x widest output]
    std::vector<DeviceBuffer<T>> weights;
    DeviceBuffer<T> q;
    DeviceBuffer<T> k;
    DeviceBuffer<T> v;
    DeviceBuffer<T> attention;
};

template <typename T>
LayerBuffers<T>
make_layer(const cw_gpu_bench_request& req, cudaStream_t stream)
{
    std::size_t widest_in = 1;
    std::size_t widest_out = 1;
    for (std::uint32_t g = 0; g < req.gemm_count; ++g) {
        widest_in = std::max<std::size_t>(widest_in, req.gemms[g].in);
        widest_out = std::max<std::size_t>(widest_out, req.gemms[g].out);
    }
    const std::size_t max_n = *std::max_element(req.tokens, req.tokens + req.token_count);
    const std::size_t q_width = static_cast<std::size_t>(req.heads) * req.head_dim;
    const std::size_t kv_width = static_cast<std::size_t>(req.kv_heads) * req.head_dim;
    LayerBuffers<T> layer{DeviceBuffer<T>(max_n * widest_in),
                          DeviceBuffer<T>(max_n * widest_out),
                          {},
                          DeviceBuffer<T>(max_n * q_width),
                          DeviceBuffer<T>(max_n * kv_width),
                          DeviceBuffer<T>(max_n * kv_width),
                          DeviceBuffer<T>(max_n * q_width)};
    for (std::uint32_t g = 0; g < req.gemm_count; ++g) {
        layer.weights.emplace_back(static_cast<std::size_t>(req.gemms[g].in) * req.gemms[g].out);
    }
    std::uint32_t seed = 1;
    const auto fill = [&](const DeviceBuffer<T>& buffer) {
        fill_random<<<1024, 256, 0, stream>>>(buffer.get(), buffer.count(), seed++);
        CW_CUDA_CHECK(cudaGetLastError());
    };
    fill(layer.activations);
    fill(layer.q);
    fill(layer.k);
    fill(layer.v);
    for (const auto& w : layer.weights) {
        fill(w);
    }
    CW_CUDA_CHECK(cudaStreamSynchronize(stream));
    return layer;
}

// Median seconds of one layer at length n: plans made first, then warm-up,
// then `repeats` timed runs of `layers` layers each.
template <typename T>
cw_gpu_bench_point
measure(const cw_gpu_bench_request& req, const Context& ctx, const LayerBuffers<T>& layer, int n)
{
    cudaStream_t stream = ctx.stream.get();
    std::vector<MatmulPlan> plans;
    plans.reserve(req.gemm_count);
    for (std::uint32_t g = 0; g < req.gemm_count; ++g) {
        plans.emplace_back(ctx.handle.get(), ctx.type, n, req.gemms[g].out, req.gemms[g].in,
                           ctx.workspace_bytes);
    }
    const auto projections = [&] {
        for (std::size_t g = 0; g < plans.size(); ++g) {
            plans[g].run(layer.activations.get(), layer.weights[g].get(), layer.outputs.get(),
                         ctx.workspace.get(), stream);
        }
    };
    const auto attention = [&] {
        launch_attention(layer.q.get(), layer.k.get(), layer.v.get(), layer.attention.get(), n,
                         req.heads, req.kv_heads, req.head_dim, stream);
    };
    for (int warm = 0; warm < 2; ++warm) {
        projections();
        attention();
    }
    CW_CUDA_CHECK(cudaStreamSynchronize(stream));
    EventTimer projections_timer;
    EventTimer attention_timer;
    std::vector<double> proj;
    std::vector<double> att;
    for (int r = 0; r < req.repeats; ++r) {
        projections_timer.start(stream);
        for (int l = 0; l < req.layers; ++l) {
            projections();
        }
        projections_timer.stop(stream);
        attention_timer.start(stream);
        for (int l = 0; l < req.layers; ++l) {
            attention();
        }
        attention_timer.stop(stream);
        proj.push_back(projections_timer.elapsed() / req.layers);
        att.push_back(attention_timer.elapsed() / req.layers);
    }
    return {median(proj), median(att)};
}

void
copy_text(char* to, std::size_t size, const std::string& text)
{
    std::snprintf(to, size, "%s", text.c_str());
}

template <typename T>
void
run_typed(const cw_gpu_bench_request& req, cudaDataType_t type, cw_gpu_bench_result& result)
{
    const std::size_t workspace_bytes = std::size_t{32} << 20;
    const Context ctx{make_stream(), make_lt_handle(), workspace_bytes,
                      DeviceBuffer<std::uint8_t>(workspace_bytes), type};
    const double tolerance = type == CUDA_R_16BF ? 3e-2 : 5e-3;
    const double error = check_against_cpu<T>(req, ctx);
    result.max_relative_error = error;
    if (!(error <= tolerance)) {
        result.status = CW_GPU_BENCH_FAILED;
        copy_text(result.message, sizeof(result.message),
                  "the GPU results differ from the CPU reference (relative error " +
                      std::to_string(error) + ", bound " + std::to_string(tolerance) +
                      "): no numbers are reported");
        return;
    }
    const auto layer = make_layer<T>(req, ctx.stream.get());
    for (std::uint32_t i = 0; i < req.token_count; ++i) {
        result.points[i] = measure<T>(req, ctx, layer, req.tokens[i]);
    }
    result.status = CW_GPU_BENCH_OK;
}

// A request this module cannot run, or "" when it can.
std::string
refusal(const cw_gpu_bench_request& req)
{
    if (req.abi != CACHEWISE_GPU_MODULE_ABI) {
        return "the CUDA module speaks interface " + std::to_string(CACHEWISE_GPU_MODULE_ABI) +
               ", cachewise asked for " + std::to_string(req.abi) +
               ": the module is from another build";
    }
    if (req.head_dim > 256) {
        return "head dims above 256 are not supported by the attention kernel";
    }
    if (req.token_count == 0 || req.layers < 1 || req.repeats < 1 || req.heads < 1 ||
        req.kv_heads < 1 || req.heads % req.kv_heads != 0) {
        return "an empty or inconsistent request";
    }
    return "";
}

void
run(const cw_gpu_bench_request& req, cw_gpu_bench_result& result)
{
    if (const auto why = refusal(req); !why.empty()) {
        result.status = CW_GPU_BENCH_FAILED;
        copy_text(result.message, sizeof(result.message), why);
        return;
    }
    int devices = 0;
    const cudaError_t status = cudaGetDeviceCount(&devices);
    if (status != cudaSuccess || devices == 0) {
        (void)cudaGetLastError();
        result.status = CW_GPU_BENCH_NO_DEVICE;
        copy_text(result.message, sizeof(result.message),
                  status != cudaSuccess
                      ? std::string("no CUDA device: ") + cudaGetErrorString(status)
                      : std::string("no CUDA device"));
        return;
    }
    cudaDeviceProp prop{};
    CW_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    int driver = 0;
    CW_CUDA_CHECK(cudaDriverGetVersion(&driver));
    copy_text(result.gpu, sizeof(result.gpu), prop.name);
    copy_text(result.driver, sizeof(result.driver),
              std::to_string(driver / 1000) + "." + std::to_string(driver % 1000 / 10));
    if (req.bf16 != 0) {
        run_typed<__nv_bfloat16>(req, CUDA_R_16BF, result);
    } else {
        run_typed<__half>(req, CUDA_R_16F, result);
    }
}

} // namespace

} // namespace cachewise::cuda

// The module's one export (see prefill/gpu_module_abi.h): nothing throws
// across it.
extern "C" __attribute__((visibility("default"))) void
cachewise_gpu_bench_v1(const cw_gpu_bench_request* request, cw_gpu_bench_result* result)
{
    result->status = CW_GPU_BENCH_FAILED;
    result->message[0] = '\0';
    try {
        cachewise::cuda::run(*request, *result);
    } catch (const std::exception& e) {
        result->status = CW_GPU_BENCH_FAILED;
        cachewise::cuda::copy_text(result->message, sizeof(result->message), e.what());
    } catch (...) {
        result->status = CW_GPU_BENCH_FAILED;
        cachewise::cuda::copy_text(result->message, sizeof(result->message), "unknown error");
    }
}
