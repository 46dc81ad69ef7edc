#include "cuda/matmul_plan.hpp"

namespace cachewise::cuda {

namespace {

MatrixLayout
make_layout(cudaDataType_t type, int rows, int cols)
{
    cublasLtMatrixLayout_t layout = nullptr;
    CW_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&layout, type, rows, cols, rows));
    return MatrixLayout(layout);
}

} // namespace

MatmulPlan::MatmulPlan(cublasLtHandle_t handle, cudaDataType_t type, int m, int n, int k,
                       std::size_t workspace_bytes)
    : m_handle(handle), m_workspace_bytes(workspace_bytes)
{
    cublasLtMatmulDesc_t desc = nullptr;
    CW_CUBLAS_CHECK(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    m_desc.reset(desc);
    // cuBLASLt is column-major: row-major C = A·B is C^T[n x m] = B^T[n x k] · A^T[k x m].
    m_a = make_layout(type, n, k);
    m_b = make_layout(type, k, m);
    m_c = make_layout(type, n, m);
    cublasLtMatmulPreference_t raw_pref = nullptr;
    CW_CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&raw_pref));
    const MatmulPreference pref(raw_pref);
    CW_CUBLAS_CHECK(
        cublasLtMatmulPreferenceSetAttribute(pref.get(), CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                             &m_workspace_bytes, sizeof(m_workspace_bytes)));
    cublasLtMatmulHeuristicResult_t result{};
    int found = 0;
    CW_CUBLAS_CHECK(cublasLtMatmulAlgoGetHeuristic(m_handle, m_desc.get(), m_a.get(), m_b.get(),
                                                   m_c.get(), m_c.get(), pref.get(), 1, &result,
                                                   &found));
    if (found == 0) {
        fail("cublasLtMatmulAlgoGetHeuristic", "no algorithm for this shape");
    }
    m_algo = result.algo;
}

void
MatmulPlan::run(const void* a, const void* b, void* c, void* workspace, cudaStream_t stream) const
{
    const float alpha = 1.0F;
    const float beta = 0.0F;
    CW_CUBLAS_CHECK(cublasLtMatmul(m_handle, m_desc.get(), &alpha, b, m_a.get(), a, m_b.get(),
                                   &beta, c, m_c.get(), c, m_c.get(), &m_algo, workspace,
                                   m_workspace_bytes, stream));
}

} // namespace cachewise::cuda
