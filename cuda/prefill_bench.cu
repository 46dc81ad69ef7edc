// The prefill microbenchmark: one transformer layer's prefill per length —
// QKV, output and MLP projections through cuBLASLt, causal attention through
// our own tiled kernel (online softmax, no n x n buffer, GQA) — timed with
// CUDA events after warm-up, median of repeats, on random inputs, after a
// correctness gate against the CPU reference.

#include "cuda/cuda_check.hpp"
#include "prefill/attention_cpu.hpp"
#include "prefill/attention_tile.hpp"
#include "prefill/flop_model.hpp"
#include "prefill/gpu_bench.hpp"

#include <algorithm>
#include <cstdint>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <random>
#include <string>
#include <utility>
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

// A device buffer that frees itself.
template <typename T> class DeviceBuffer {
public:
    explicit DeviceBuffer(std::size_t count) : m_count(count)
    {
        CW_CUDA_CHECK(cudaMalloc(&m_data, std::max<std::size_t>(count, 1) * sizeof(T)));
    }
    ~DeviceBuffer() { cudaFree(m_data); }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    T*
    get() const
    {
        return m_data;
    }
    std::size_t
    count() const
    {
        return m_count;
    }

private:
    T* m_data = nullptr;
    std::size_t m_count;
};

// A move-only pair of CUDA events; elapsed() returns seconds.
class EventTimer {
public:
    EventTimer()
    {
        CW_CUDA_CHECK(cudaEventCreate(&m_start));
        CW_CUDA_CHECK(cudaEventCreate(&m_stop));
    }
    ~EventTimer()
    {
        cudaEventDestroy(m_start);
        cudaEventDestroy(m_stop);
    }
    EventTimer(const EventTimer&) = delete;
    EventTimer& operator=(const EventTimer&) = delete;
    void
    start(cudaStream_t s)
    {
        CW_CUDA_CHECK(cudaEventRecord(m_start, s));
    }
    void
    stop(cudaStream_t s)
    {
        CW_CUDA_CHECK(cudaEventRecord(m_stop, s));
    }
    double
    elapsed()
    {
        CW_CUDA_CHECK(cudaEventSynchronize(m_stop));
        float ms = 0;
        CW_CUDA_CHECK(cudaEventElapsedTime(&ms, m_start, m_stop));
        return static_cast<double>(ms) / 1e3;
    }

private:
    cudaEvent_t m_start = nullptr;
    cudaEvent_t m_stop = nullptr;
};

// Row-major C[m x n] = A[m x k] · B[k x n] through cuBLASLt, fp32 accumulate.
class Gemm {
public:
    Gemm(cublasLtHandle_t handle, cudaDataType_t type, void* workspace, std::size_t workspace_bytes)
        : m_handle(handle), m_type(type), m_workspace(workspace), m_workspace_bytes(workspace_bytes)
    {
        CW_CUBLAS_CHECK(cublasLtMatmulDescCreate(&m_desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    }
    ~Gemm() { cublasLtMatmulDescDestroy(m_desc); }
    Gemm(const Gemm&) = delete;
    Gemm& operator=(const Gemm&) = delete;

    void
    run(const void* a, const void* b, void* c, int m, int n, int k, cudaStream_t stream)
    {
        // Column-major view: C^T[n x m] = B^T[n x k] · A^T[k x m].
        cublasLtMatrixLayout_t la = nullptr;
        cublasLtMatrixLayout_t lb = nullptr;
        cublasLtMatrixLayout_t lc = nullptr;
        CW_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&la, m_type, n, k, n));
        CW_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&lb, m_type, k, m, k));
        CW_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&lc, m_type, n, m, n));
        cublasLtMatmulPreference_t pref = nullptr;
        CW_CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&pref));
        CW_CUBLAS_CHECK(
            cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                 &m_workspace_bytes, sizeof(m_workspace_bytes)));
        cublasLtMatmulHeuristicResult_t result{};
        int found = 0;
        CW_CUBLAS_CHECK(cublasLtMatmulAlgoGetHeuristic(m_handle, m_desc, la, lb, lc, lc, pref, 1,
                                                       &result, &found));
        if (found == 0) {
            fail("cublasLtMatmulAlgoGetHeuristic", "no algorithm for this shape");
        }
        const float alpha = 1.0F;
        const float beta = 0.0F;
        CW_CUBLAS_CHECK(cublasLtMatmul(m_handle, m_desc, &alpha, b, la, a, lb, &beta, c, lc, c, lc,
                                       &result.algo, m_workspace, m_workspace_bytes, stream));
        cublasLtMatmulPreferenceDestroy(pref);
        cublasLtMatrixLayoutDestroy(la);
        cublasLtMatrixLayoutDestroy(lb);
        cublasLtMatrixLayoutDestroy(lc);
    }

private:
    cublasLtHandle_t m_handle;
    cudaDataType_t m_type;
    cublasLtMatmulDesc_t m_desc = nullptr;
    void* m_workspace;
    std::size_t m_workspace_bytes;
};

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

// The correctness gate: the kernel and one GEMM against the CPU reference
// on rounded random inputs, at a small length that is not a multiple of the tiles.
template <typename T>
double
check_against_cpu(const prefill::BenchRequest& req, Gemm& gemm, cudaStream_t stream)
{
    const auto& m = req.model;
    const int n = 157;
    const int heads = std::min(m.heads, 8);
    const int kv_heads = std::max(1, heads / std::max(1, m.heads / m.kv_heads));
    const int dim = m.head_dim;
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
    DeviceBuffer<T> dq(q.size());
    DeviceBuffer<T> dk(k.size());
    DeviceBuffer<T> dv(v.size());
    DeviceBuffer<T> dout(q.size());
    const auto hq = to_device_type<T>(q);
    const auto hk = to_device_type<T>(k);
    const auto hv = to_device_type<T>(v);
    CW_CUDA_CHECK(cudaMemcpy(dq.get(), hq.data(), hq.size() * sizeof(T), cudaMemcpyHostToDevice));
    CW_CUDA_CHECK(cudaMemcpy(dk.get(), hk.data(), hk.size() * sizeof(T), cudaMemcpyHostToDevice));
    CW_CUDA_CHECK(cudaMemcpy(dv.get(), hv.data(), hv.size() * sizeof(T), cudaMemcpyHostToDevice));
    launch_attention(dq.get(), dk.get(), dv.get(), dout.get(), n, heads, kv_heads, dim, stream);
    std::vector<T> out_device(q.size());
    CW_CUDA_CHECK(cudaMemcpy(out_device.data(), dout.get(), out_device.size() * sizeof(T),
                             cudaMemcpyDeviceToHost));
    std::vector<float> out(out_device.size());
    for (std::size_t i = 0; i < out.size(); ++i) {
        out[i] = to_float(out_device[i]);
    }
    double worst = prefill::relative_error(out, prefill::attention_naive(shape, q, k, v));

    // One GEMM: [n x 96] · [96 x 80].
    const int gk = 96;
    const int gn = 80;
    const auto a = random(static_cast<std::size_t>(n) * gk);
    const auto b = random(static_cast<std::size_t>(gk) * gn);
    DeviceBuffer<T> da(a.size());
    DeviceBuffer<T> db(b.size());
    DeviceBuffer<T> dc(static_cast<std::size_t>(n) * gn);
    const auto ha = to_device_type<T>(a);
    const auto hb = to_device_type<T>(b);
    CW_CUDA_CHECK(cudaMemcpy(da.get(), ha.data(), ha.size() * sizeof(T), cudaMemcpyHostToDevice));
    CW_CUDA_CHECK(cudaMemcpy(db.get(), hb.data(), hb.size() * sizeof(T), cudaMemcpyHostToDevice));
    gemm.run(da.get(), db.get(), dc.get(), n, gn, gk, stream);
    std::vector<T> c_device(dc.count());
    CW_CUDA_CHECK(
        cudaMemcpy(c_device.data(), dc.get(), c_device.size() * sizeof(T), cudaMemcpyDeviceToHost));
    std::vector<float> c(c_device.size());
    std::vector<float> expected(c_device.size(), 0.0F);
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < gn; ++j) {
            double sum = 0;
            for (int x = 0; x < gk; ++x) {
                sum += static_cast<double>(a[static_cast<std::size_t>(i) * gk + x]) *
                       b[static_cast<std::size_t>(x) * gn + j];
            }
            expected[static_cast<std::size_t>(i) * gn + j] = static_cast<float>(sum);
            c[static_cast<std::size_t>(i) * gn + j] =
                to_float(c_device[static_cast<std::size_t>(i) * gn + j]);
        }
    }
    worst = std::max(worst, prefill::relative_error(c, expected));
    return worst;
}

double
median(std::vector<double> values)
{
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
}

template <typename T>
prefill::BenchOutcome
run_typed(const prefill::BenchRequest& req, cudaDataType_t type, const std::string& gpu_name,
          const std::string& driver)
{
    prefill::BenchOutcome outcome;
    const auto& m = req.model;
    cudaStream_t stream = nullptr;
    CW_CUDA_CHECK(cudaStreamCreate(&stream));
    cublasLtHandle_t handle = nullptr;
    CW_CUBLAS_CHECK(cublasLtCreate(&handle));
    const std::size_t workspace_bytes = std::size_t{32} << 20;
    DeviceBuffer<std::uint8_t> workspace(workspace_bytes);
    Gemm gemm(handle, type, workspace.get(), workspace_bytes);

    const double tolerance = type == CUDA_R_16BF ? 3e-2 : 5e-3;
    const double error = check_against_cpu<T>(req, gemm, stream);
    outcome.profile.max_relative_error = error;
    if (!(error <= tolerance)) {
        outcome.status = prefill::BenchOutcome::Status::failed;
        outcome.message = "the GPU results differ from the CPU reference (relative error " +
                          std::to_string(error) + ", bound " + std::to_string(tolerance) +
                          "): no numbers are reported";
        cublasLtDestroy(handle);
        cudaStreamDestroy(stream);
        return outcome;
    }

    const int hidden = m.hidden;
    const int q_dim = m.heads * m.head_dim;
    const int kv_dim = m.kv_heads * m.head_dim;
    const int ffn = m.ffn;
    const int max_n = *std::max_element(req.tokens.begin(), req.tokens.end());
    const auto big = [](std::size_t a, std::size_t b) { return a * b; };
    DeviceBuffer<T> x(big(max_n, std::max(hidden, ffn)));
    DeviceBuffer<T> w_qkv(big(hidden, q_dim + 2 * kv_dim));
    DeviceBuffer<T> qkv(big(max_n, q_dim + 2 * kv_dim));
    DeviceBuffer<T> q(big(max_n, q_dim));
    DeviceBuffer<T> k(big(max_n, kv_dim));
    DeviceBuffer<T> v(big(max_n, kv_dim));
    DeviceBuffer<T> attn(big(max_n, q_dim));
    DeviceBuffer<T> w_o(big(q_dim, hidden));
    DeviceBuffer<T> h(big(max_n, hidden));
    DeviceBuffer<T> w_up(big(hidden, 2 * ffn));
    DeviceBuffer<T> up(big(max_n, 2 * ffn));
    DeviceBuffer<T> w_down(big(ffn, hidden));
    std::uint32_t seed = 1;
    for (auto* buffer : {&x, &w_qkv, &q, &k, &v, &w_o, &w_up, &w_down}) {
        fill_random<<<1024, 256, 0, stream>>>(buffer->get(), buffer->count(), seed++);
        CW_CUDA_CHECK(cudaGetLastError());
    }
    CW_CUDA_CHECK(cudaStreamSynchronize(stream));

    const prefill::FlopModel flops(m);
    outcome.profile.gpu = gpu_name;
    outcome.profile.driver = driver;
    outcome.profile.model = m.id;
    outcome.profile.dtype = type == CUDA_R_16BF ? "bf16" : "fp16";
    outcome.profile.model_layers = m.layers;
    outcome.profile.layers_benchmarked = req.layers;
    outcome.profile.measured = true;
    EventTimer projections_timer;
    EventTimer attention_timer;
    for (const int n : req.tokens) {
        const auto projections = [&] {
            gemm.run(x.get(), w_qkv.get(), qkv.get(), n, q_dim + 2 * kv_dim, hidden, stream);
            gemm.run(attn.get(), w_o.get(), h.get(), n, hidden, q_dim, stream);
            gemm.run(x.get(), w_up.get(), up.get(), n, 2 * ffn, hidden, stream);
            gemm.run(x.get(), w_down.get(), h.get(), n, hidden, ffn, stream);
        };
        const auto attention = [&] {
            launch_attention(q.get(), k.get(), v.get(), attn.get(), n, m.heads, m.kv_heads,
                             m.head_dim, stream);
        };
        for (int warm = 0; warm < 2; ++warm) {
            projections();
            attention();
        }
        CW_CUDA_CHECK(cudaStreamSynchronize(stream));
        std::vector<double> proj;
        std::vector<double> att;
        for (int r = 0; r < req.repeats; ++r) {
            projections_timer.start(stream);
            for (int l = 0; l < req.layers; ++l) {
                projections();
            }
            projections_timer.stop(stream);
            proj.push_back(projections_timer.elapsed() / req.layers);
            attention_timer.start(stream);
            for (int l = 0; l < req.layers; ++l) {
                attention();
            }
            attention_timer.stop(stream);
            att.push_back(attention_timer.elapsed() / req.layers);
        }
        prefill::ProfilePoint p;
        p.tokens = n;
        p.projection_seconds = median(proj);
        p.attention_seconds = median(att);
        p.seconds_per_layer = p.projection_seconds + p.attention_seconds;
        const double layer_flops = 2.0 * n *
                                       (static_cast<double>(hidden) * (q_dim + 2 * kv_dim) +
                                        static_cast<double>(q_dim) * hidden + 3.0 * hidden * ffn) +
                                   flops.attention_flops_per_layer(n);
        p.tflops = layer_flops / p.seconds_per_layer / 1e12;
        p.fraction_of_peak = req.peak_tflops > 0 ? p.tflops / req.peak_tflops : 0;
        outcome.profile.points.push_back(p);
    }
    outcome.profile.fit();
    outcome.status = prefill::BenchOutcome::Status::ok;
    cublasLtDestroy(handle);
    cudaStreamDestroy(stream);
    return outcome;
}

} // namespace

prefill::BenchOutcome
run_prefill_bench(const prefill::BenchRequest& req)
{
    prefill::BenchOutcome outcome;
    int devices = 0;
    const cudaError_t status = cudaGetDeviceCount(&devices);
    if (status != cudaSuccess || devices == 0) {
        (void)cudaGetLastError();
        outcome.status = prefill::BenchOutcome::Status::no_device;
        outcome.message = status != cudaSuccess
                              ? std::string("no CUDA device: ") + cudaGetErrorString(status)
                              : std::string("no CUDA device");
        return outcome;
    }
    try {
        cudaDeviceProp prop{};
        CW_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
        int driver = 0;
        CW_CUDA_CHECK(cudaDriverGetVersion(&driver));
        const std::string driver_text =
            std::to_string(driver / 1000) + "." + std::to_string(driver % 1000 / 10);
        if (req.model.head_dim > 256) {
            outcome.message = "head dims above 256 are not supported by the attention kernel";
            return outcome;
        }
        return req.bf16 ? run_typed<__nv_bfloat16>(req, CUDA_R_16BF, prop.name, driver_text)
                        : run_typed<__half>(req, CUDA_R_16F, prop.name, driver_text);
    } catch (const std::exception& e) {
        outcome.status = prefill::BenchOutcome::Status::failed;
        outcome.message = e.what();
        return outcome;
    }
}

} // namespace cachewise::cuda
