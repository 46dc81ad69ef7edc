#include "prefill/flop_model.hpp"

#include <algorithm>

namespace cachewise::prefill {

namespace {

// Query-key pairs a causal layer scores: n²/2, or, with a window of w keys,
// w·n − w²/2 once n exceeds it.
double
pairs(double n, int window)
{
    const double full = n * n / 2;
    if (window <= 0 || n <= window) {
        return full;
    }
    const double w = window;
    return std::min(full, w * n - w * w / 2);
}

} // namespace

double
FlopModel::attention_flops_per_layer(double n, bool sliding) const
{
    const auto& s = *m_shape;
    const double d_qk = static_cast<double>(s.heads) * s.head_dim;
    const double d_v = static_cast<double>(s.heads) * s.v_head_dim;
    return 2 * (d_qk + d_v) * pairs(n, sliding ? s.window : 0);
}

double
FlopModel::projection_flops_per_layer(double n) const
{
    return 2 * m_shape->non_embedding_params / m_shape->layers * n;
}

double
FlopModel::full_layer_flops(double n) const
{
    return projection_flops_per_layer(n) + attention_flops_per_layer(n, false);
}

std::vector<FlopModel::Gemm>
FlopModel::projection_gemms() const
{
    const auto& s = *m_shape;
    const int q_width = s.heads * s.head_dim;
    const int kv_width = s.kv_heads * s.head_dim;
    return {{s.hidden, q_width + 2 * kv_width},
            {q_width, s.hidden},
            {s.hidden, 2 * s.ffn},
            {s.ffn, s.hidden}};
}

double
FlopModel::flops(double n) const
{
    const auto& s = *m_shape;
    const int full = s.layers - s.sliding_window_layers;
    return 2 * s.non_embedding_params * n + full * attention_flops_per_layer(n, false) +
           s.sliding_window_layers * attention_flops_per_layer(n, true);
}

double
FlopModel::kv_bytes_per_token_per_layer(int bytes) const
{
    const auto& s = *m_shape;
    if (s.mla) {
        return static_cast<double>(s.kv_lora_rank + s.qk_rope_head_dim) *
               bytes; // the latent, not K and V
    }
    return 2.0 * s.kv_heads * s.head_dim * bytes;
}

double
FlopModel::kv_bytes_per_token(int bytes) const
{
    return m_shape->layers * kv_bytes_per_token_per_layer(bytes);
}

double
FlopModel::kv_bytes(double tokens, int bytes) const
{
    const auto& s = *m_shape;
    const double per_layer = kv_bytes_per_token_per_layer(bytes);
    const int full = s.layers - s.sliding_window_layers;
    const double windowed = s.window > 0 ? std::min<double>(tokens, s.window) : tokens;
    return per_layer * (full * tokens + s.sliding_window_layers * windowed);
}

} // namespace cachewise::prefill
