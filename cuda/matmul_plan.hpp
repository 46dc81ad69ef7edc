#pragma once

// One cuBLASLt matmul, planned once: descriptor, layouts and the heuristic's
// algorithm are made when the plan is built, outside any timed loop, so a
// timed run() is the matmul alone.

#include "cuda/handles.hpp"

#include <cstddef>

namespace cachewise::cuda {

// Row-major C[m x n] = A[m x k] · B[k x n], fp32 accumulate, in `type`.
class MatmulPlan {
public:
    MatmulPlan(cublasLtHandle_t handle, cudaDataType_t type, int m, int n, int k,
               std::size_t workspace_bytes);

    void run(const void* a, const void* b, void* c, void* workspace, cudaStream_t stream) const;

private:
    cublasLtHandle_t m_handle;
    MatmulDesc m_desc;
    MatrixLayout m_a; // the column-major views: see the constructor
    MatrixLayout m_b;
    MatrixLayout m_c;
    cublasLtMatmulAlgo_t m_algo{};
    std::size_t m_workspace_bytes;
};

} // namespace cachewise::cuda
