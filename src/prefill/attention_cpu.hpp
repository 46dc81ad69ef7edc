#pragma once

#include <vector>

namespace cachewise::prefill {

// Causal multi-head attention with grouped KV heads, on the CPU, for the
// benchmark's correctness gate and the tests. Layouts: q [n][heads][dim],
// k and v [n][kv_heads][dim], out [n][heads][dim].
struct AttentionShape {
    int tokens = 0;
    int heads = 0;
    int kv_heads = 0;
    int dim = 0;
};

// Softmax over each row's full score vector: the reference.
std::vector<float> attention_naive(const AttentionShape& shape, const std::vector<float>& q,
                                   const std::vector<float>& k, const std::vector<float>& v);

// The kernel's algorithm run sequentially: key tiles of `tile` rows copied
// out as the kernel stages them in shared memory, the online softmax of
// attention_tile.hpp over them.
std::vector<float> attention_blocked(const AttentionShape& shape, const std::vector<float>& q,
                                     const std::vector<float>& k, const std::vector<float>& v,
                                     int tile);

// max |a − b| / max |b|.
double relative_error(const std::vector<float>& a, const std::vector<float>& b);

} // namespace cachewise::prefill
