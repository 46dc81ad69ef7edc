#pragma once

// Every CUDA runtime and cuBLAS call is checked; a failure names the call.

#include <cublasLt.h>
#include <cuda_runtime.h>
#include <stdexcept>
#include <string>

namespace cachewise::cuda {

[[noreturn]] inline void
fail(const char* call, const std::string& what)
{
    throw std::runtime_error(std::string(call) + " failed: " + what);
}

} // namespace cachewise::cuda

#define CW_CUDA_CHECK(call)                                                                        \
    do {                                                                                           \
        const cudaError_t cw_status_ = (call);                                                     \
        if (cw_status_ != cudaSuccess) {                                                           \
            (void)cudaGetLastError();                                                              \
            ::cachewise::cuda::fail(#call, cudaGetErrorString(cw_status_));                        \
        }                                                                                          \
    } while (false)

#define CW_CUBLAS_CHECK(call)                                                                      \
    do {                                                                                           \
        const cublasStatus_t cw_status_ = (call);                                                  \
        if (cw_status_ != CUBLAS_STATUS_SUCCESS) {                                                 \
            ::cachewise::cuda::fail(#call, cublasLtGetStatusString(cw_status_));                   \
        }                                                                                          \
    } while (false)
