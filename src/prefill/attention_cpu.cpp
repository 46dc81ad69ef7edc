#include "prefill/attention_cpu.hpp"

#include "prefill/attention_tile.hpp"

#include <algorithm>
#include <cmath>

namespace cachewise::prefill {

std::vector<float>
attention_naive(const AttentionShape& s, const std::vector<float>& q, const std::vector<float>& k,
                const std::vector<float>& v)
{
    std::vector<float> out(static_cast<std::size_t>(s.tokens) * s.heads * s.dim, 0.0F);
    const int group = s.heads / s.kv_heads;
    const double scale = 1.0 / std::sqrt(static_cast<double>(s.dim));
    std::vector<double> scores(static_cast<std::size_t>(s.tokens));
    for (int h = 0; h < s.heads; ++h) {
        const int kh = h / group;
        for (int i = 0; i < s.tokens; ++i) {
            const float* qi = &q[(static_cast<std::size_t>(i) * s.heads + h) * s.dim];
            double max = -INFINITY;
            for (int j = 0; j <= i; ++j) {
                const float* kj = &k[(static_cast<std::size_t>(j) * s.kv_heads + kh) * s.dim];
                double dot = 0;
                for (int c = 0; c < s.dim; ++c) {
                    dot += static_cast<double>(qi[c]) * kj[c];
                }
                scores[j] = dot * scale;
                max = std::max(max, scores[j]);
            }
            double sum = 0;
            for (int j = 0; j <= i; ++j) {
                scores[j] = std::exp(scores[j] - max);
                sum += scores[j];
            }
            float* o = &out[(static_cast<std::size_t>(i) * s.heads + h) * s.dim];
            for (int j = 0; j <= i; ++j) {
                const float* vj = &v[(static_cast<std::size_t>(j) * s.kv_heads + kh) * s.dim];
                for (int c = 0; c < s.dim; ++c) {
                    o[c] += static_cast<float>(scores[j] / sum * vj[c]);
                }
            }
        }
    }
    return out;
}

std::vector<float>
attention_blocked(const AttentionShape& s, const std::vector<float>& q, const std::vector<float>& k,
                  const std::vector<float>& v, int tile)
{
    std::vector<float> out(static_cast<std::size_t>(s.tokens) * s.heads * s.dim, 0.0F);
    const int group = s.heads / s.kv_heads;
    const float scale = 1.0F / std::sqrt(static_cast<float>(s.dim));
    std::vector<float> key_tile(static_cast<std::size_t>(tile) * s.dim);
    std::vector<float> value_tile(static_cast<std::size_t>(tile) * s.dim);
    for (int h = 0; h < s.heads; ++h) {
        const int kh = h / group;
        for (int i = 0; i < s.tokens; ++i) {
            const float* qi = &q[(static_cast<std::size_t>(i) * s.heads + h) * s.dim];
            float* acc = &out[(static_cast<std::size_t>(i) * s.heads + h) * s.dim];
            RowState state;
            for (int start = 0; start <= i; start += tile) {
                const int len = std::min(tile, s.tokens - start);
                for (int j = 0; j < len; ++j) {
                    std::copy_n(&k[(static_cast<std::size_t>(start + j) * s.kv_heads + kh) * s.dim],
                                s.dim, &key_tile[static_cast<std::size_t>(j) * s.dim]);
                    std::copy_n(&v[(static_cast<std::size_t>(start + j) * s.kv_heads + kh) * s.dim],
                                s.dim, &value_tile[static_cast<std::size_t>(j) * s.dim]);
                }
                attend_tile(qi, key_tile.data(), value_tile.data(), len, start, i, s.dim, scale,
                            state, acc);
            }
            finish_row(state, s.dim, acc);
        }
    }
    return out;
}

double
relative_error(const std::vector<float>& a, const std::vector<float>& b)
{
    double worst = 0;
    double scale = 0;
    for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
        worst = std::max(worst, std::abs(static_cast<double>(a[i]) - b[i]));
        scale = std::max(scale, std::abs(static_cast<double>(b[i])));
    }
    return scale > 0 ? worst / scale : worst;
}

} // namespace cachewise::prefill
