#pragma once

// Owners of every CUDA and cuBLASLt object the benchmark creates, so that a
// check that throws half-way leaks nothing: the stream, events, the cuBLASLt
// handle, matmul descriptors, layouts and preferences, device buffers.
// Destruction ignores the status: it runs while an earlier error is already
// on its way out, and there is nothing better to do with a second one.

#include "cuda/cuda_check.hpp"

#include <algorithm>
#include <cstddef>
#include <memory>
#include <type_traits>

namespace cachewise::cuda {

template <typename Handle, auto Destroy> struct Destroyer {
    void operator()(Handle handle) const noexcept { (void)Destroy(handle); }
};

// Every handle type here is a pointer to an opaque struct.
template <typename Handle, auto Destroy>
using Owned = std::unique_ptr<std::remove_pointer_t<Handle>, Destroyer<Handle, Destroy>>;

using Stream = Owned<cudaStream_t, cudaStreamDestroy>;
using Event = Owned<cudaEvent_t, cudaEventDestroy>;
using LtHandle = Owned<cublasLtHandle_t, cublasLtDestroy>;
using MatmulDesc = Owned<cublasLtMatmulDesc_t, cublasLtMatmulDescDestroy>;
using MatrixLayout = Owned<cublasLtMatrixLayout_t, cublasLtMatrixLayoutDestroy>;
using MatmulPreference = Owned<cublasLtMatmulPreference_t, cublasLtMatmulPreferenceDestroy>;

inline Stream
make_stream()
{
    cudaStream_t stream = nullptr;
    CW_CUDA_CHECK(cudaStreamCreate(&stream));
    return Stream(stream);
}

inline Event
make_event()
{
    cudaEvent_t event = nullptr;
    CW_CUDA_CHECK(cudaEventCreate(&event));
    return Event(event);
}

inline LtHandle
make_lt_handle()
{
    cublasLtHandle_t handle = nullptr;
    CW_CUBLAS_CHECK(cublasLtCreate(&handle));
    return LtHandle(handle);
}

// A device array of `count` T (at least one element is allocated).
template <typename T> class DeviceBuffer {
public:
    explicit DeviceBuffer(std::size_t count) : m_count(count)
    {
        void* data = nullptr;
        CW_CUDA_CHECK(cudaMalloc(&data, std::max<std::size_t>(count, 1) * sizeof(T)));
        m_data.reset(static_cast<T*>(data));
    }

    [[nodiscard]] T* get() const { return m_data.get(); }
    [[nodiscard]] std::size_t count() const { return m_count; }

private:
    struct Free {
        void operator()(T* data) const noexcept { (void)cudaFree(data); }
    };
    std::unique_ptr<T, Free> m_data;
    std::size_t m_count;
};

// A move-only pair of events around work on a stream; elapsed() is seconds
// (events resolve about half a microsecond).
class EventTimer {
public:
    EventTimer() : m_start(make_event()), m_stop(make_event()) {}

    void start(cudaStream_t stream) { CW_CUDA_CHECK(cudaEventRecord(m_start.get(), stream)); }
    void stop(cudaStream_t stream) { CW_CUDA_CHECK(cudaEventRecord(m_stop.get(), stream)); }
    [[nodiscard]] double elapsed() const
    {
        CW_CUDA_CHECK(cudaEventSynchronize(m_stop.get()));
        float ms = 0;
        CW_CUDA_CHECK(cudaEventElapsedTime(&ms, m_start.get(), m_stop.get()));
        return static_cast<double>(ms) / 1e3;
    }

private:
    Event m_start;
    Event m_stop;
};

} // namespace cachewise::cuda
