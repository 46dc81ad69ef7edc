#pragma once

// The tile math of the prefill benchmark's attention kernel, shared by the
// CUDA kernel and the CPU tests: causal masking and the online softmax
// (running maximum, running sum, rescaled accumulator), so no n×n score
// matrix ever exists. Plain functions over float arrays.

#include <cmath>

#if defined(__CUDACC__)
#define CW_HOST_DEVICE __host__ __device__
#else
#define CW_HOST_DEVICE
#endif

namespace cachewise::prefill {

struct RowState {
    float max = -INFINITY; // running maximum of the scores seen
    float sum = 0.0F;      // Σ exp(score − max)
};

// Adds one key to a query row's state: acc holds Σ exp(score − max)·v.
CW_HOST_DEVICE inline void
online_softmax_add(float score, const float* value, int dim, RowState& state, float* acc)
{
    if (score > state.max) {
        const float correction = state.max == -INFINITY ? 0.0F : expf(state.max - score);
        state.sum = state.sum * correction + 1.0F;
        for (int c = 0; c < dim; ++c) {
            acc[c] = acc[c] * correction + value[c];
        }
        state.max = score;
    } else {
        const float p = expf(score - state.max);
        state.sum += p;
        for (int c = 0; c < dim; ++c) {
            acc[c] += p * value[c];
        }
    }
}

// One query row against one tile of keys [key_begin, key_begin + tile_len),
// rows of `dim` floats at `keys` and `values` (row stride `dim`). Keys after
// the query's own position are masked out (causal).
CW_HOST_DEVICE inline void
attend_tile(const float* query, const float* keys, const float* values, int tile_len, int key_begin,
            int query_position, int dim, float scale, RowState& state, float* acc)
{
    for (int j = 0; j < tile_len; ++j) {
        if (key_begin + j > query_position) {
            break; // causal: later keys are invisible, and so are all after them
        }
        float score = 0.0F;
        for (int c = 0; c < dim; ++c) {
            score += query[c] * keys[j * dim + c];
        }
        online_softmax_add(score * scale, values + j * dim, dim, state, acc);
    }
}

// The output row: acc / sum.
CW_HOST_DEVICE inline void
finish_row(const RowState& state, int dim, float* acc)
{
    const float inv = state.sum > 0.0F ? 1.0F / state.sum : 0.0F;
    for (int c = 0; c < dim; ++c) {
        acc[c] *= inv;
    }
}

} // namespace cachewise::prefill
