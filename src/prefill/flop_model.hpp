#pragma once

#include "ruleset/rules.hpp"

#include <cstdint>
#include <vector>

namespace cachewise::prefill {

// FLOPs and KV memory of a causal prefill (shared/reference/performance-
// anchors.md §5): F(n) = 2·P·n + Σ_layers 2·(d_qk + d_v)·pairs(n), where P
// is the non-embedding (active) parameter count and pairs(n) the
// query-key pairs a layer scores: n²/2 for full causal attention, fewer for
// a sliding window. With d_qk = d_v = d_attn this is the familiar
// 2·P·n + 2·L·d_attn·n². GQA does not change it. A cached prefix of h tokens
// saves exactly F(h): the suffix still attends to it, but nothing of the
// prefix is computed again.
class FlopModel {
public:
    // One projection of a layer as a dense GEMM: activations [n x in] times
    // weights [in x out].
    struct Gemm {
        int in = 0;
        int out = 0;
    };

    explicit FlopModel(const ruleset::ModelShape& shape) : m_shape(&shape) {}

    [[nodiscard]] double flops(double tokens) const;
    // One layer, the same split (for the per-layer benchmark).
    [[nodiscard]] double projection_flops_per_layer(double tokens) const;
    [[nodiscard]] double attention_flops_per_layer(double tokens, bool sliding = false) const;
    // A full-attention layer: what the GPU benchmark runs and divides by its
    // time, so that measured and modelled TFLOP/s count the same FLOPs.
    [[nodiscard]] double full_layer_flops(double tokens) const;
    // The GEMMs the benchmark times for one layer: QKV, output, gated MLP
    // up (gate and up together) and down. For a dense model their weights
    // are exactly non_embedding_params / layers (llama-3.1-8b: 218.1M); for
    // a mixture of experts (ffn = the active width) within about 1%; for MLA
    // (DeepSeek) they are full-rank stand-ins, and the rates still count the
    // model's own FLOPs.
    [[nodiscard]] std::vector<Gemm> projection_gemms() const;
    [[nodiscard]] double saved(double cached_tokens) const { return flops(cached_tokens); }

    // KV bytes per cached token of a full-attention layer stack:
    // 2·L·n_kv·d_head·bytes (MLA: L·(kv_lora_rank + rope dims)·bytes).
    [[nodiscard]] double kv_bytes_per_token(int bytes_per_element = 2) const;
    // KV bytes a prefix of `tokens` holds; sliding-window layers keep at most
    // their window.
    [[nodiscard]] double kv_bytes(double tokens, int bytes_per_element = 2) const;

    [[nodiscard]] const ruleset::ModelShape& shape() const { return *m_shape; }

private:
    [[nodiscard]] double kv_bytes_per_token_per_layer(int bytes_per_element) const;
    const ruleset::ModelShape* m_shape;
};

} // namespace cachewise::prefill
