#pragma once

#include "ruleset/rules.hpp"

#include <cstdint>

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
    explicit FlopModel(const ruleset::ModelShape& shape) : m_shape(&shape) {}

    [[nodiscard]] double flops(double tokens) const;
    // One layer, the same split (for the per-layer benchmark).
    [[nodiscard]] double projection_flops_per_layer(double tokens) const;
    [[nodiscard]] double attention_flops_per_layer(double tokens, bool sliding = false) const;
    [[nodiscard]] double
    saved(double cached_tokens) const
    {
        return flops(cached_tokens);
    }

    // KV bytes per cached token of a full-attention layer stack:
    // 2·L·n_kv·d_head·bytes (MLA: L·(kv_lora_rank + rope dims)·bytes).
    [[nodiscard]] double kv_bytes_per_token(int bytes_per_element = 2) const;
    // KV bytes a prefix of `tokens` holds; sliding-window layers keep at most
    // their window.
    [[nodiscard]] double kv_bytes(double tokens, int bytes_per_element = 2) const;

    [[nodiscard]] const ruleset::ModelShape&
    shape() const
    {
        return *m_shape;
    }

private:
    [[nodiscard]] double kv_bytes_per_token_per_layer(int bytes_per_element) const;
    const ruleset::ModelShape* m_shape;
};

} // namespace cachewise::prefill
