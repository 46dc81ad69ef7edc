#include "helpers.hpp"
#include "prefill/attention_cpu.hpp"
#include "prefill/flop_model.hpp"
#include "prefill/modelled.hpp"
#include "prefill/profile.hpp"

#include <doctest/doctest.h>

#include <random>

using namespace cachewise;
using namespace cachewise::prefill;

namespace {

const ruleset::ModelShape&
shape_of(const char* id)
{
    const auto* m = test::rules().find_model(id);
    REQUIRE(m != nullptr);
    return *m;
}

std::vector<float>
random(std::size_t count, std::mt19937& rng)
{
    std::uniform_real_distribution<float> dist(-1.0F, 1.0F);
    std::vector<float> out(count);
    for (auto& x : out) {
        x = dist(rng);
    }
    return out;
}

} // namespace

TEST_SUITE("prefill")
{
    TEST_CASE("F(n) = 2·P·n + 2·L·d·n² matches the hand-computed anchors")
    {
        // Llama-3-8B, 8,192 tokens: 2 x 6.98e9 x 8192 + 2 x 32 x 4096 x 8192² = 1.32e14.
        const FlopModel llama8(shape_of("llama-3.1-8b"));
        CHECK(llama8.flops(8192) == doctest::Approx(1.32e14).epsilon(0.01));
        CHECK(llama8.flops(8192) ==
              doctest::Approx(2 * 6979321856.0 * 8192 + 2 * 32 * 4096 * 8192.0 * 8192)
                  .epsilon(1e-12));
        // Llama-3-70B: 1.21e15.
        CHECK(FlopModel(shape_of("llama-3.1-70b")).flops(8192) ==
              doctest::Approx(1.21e15).epsilon(0.01));
        // A cached prefix saves exactly F(h).
        CHECK(llama8.saved(4096) == doctest::Approx(llama8.flops(4096)));
        // Case-insensitive ids and Hugging Face aliases.
        CHECK(test::rules().find_model("META-LLAMA/Llama-3.1-8B-Instruct") ==
              &shape_of("llama-3.1-8b"));
        CHECK(test::rules().find_model("gpt-5") == nullptr);
    }

    TEST_CASE("the benchmark's GEMMs are the model's projections, counted as the FLOP model does")
    {
        // Dense: the GEMM weights of a layer are exactly P / L, so a measured
        // TFLOP/s (full_layer_flops over the time) is the work the GPU did.
        const auto& llama = shape_of("llama-3.1-8b");
        const FlopModel f(llama);
        double weights = 0;
        for (const auto& g : f.projection_gemms()) {
            weights += static_cast<double>(g.in) * g.out;
        }
        CHECK(weights == doctest::Approx(218103808.0)); // 6,979,321,856 / 32
        CHECK(2 * weights * 4096 == doctest::Approx(f.projection_flops_per_layer(4096)));
        CHECK(f.full_layer_flops(4096) == doctest::Approx(f.projection_flops_per_layer(4096) +
                                                          f.attention_flops_per_layer(4096)));
        // Without sliding layers, a full layer is the model's average layer.
        CHECK(f.full_layer_flops(8192) * llama.layers == doctest::Approx(f.flops(8192)));
        // A mixture of experts runs its active width densely: within 2%.
        const FlopModel moe(shape_of("gpt-oss-120b"));
        double moe_weights = 0;
        for (const auto& g : moe.projection_gemms()) {
            moe_weights += static_cast<double>(g.in) * g.out;
        }
        CHECK(2 * moe_weights * 1000 ==
              doctest::Approx(moe.projection_flops_per_layer(1000)).epsilon(0.02));
    }

    TEST_CASE("KV bytes per token: GQA, MLA and sliding windows")
    {
        // 2 x 32 layers x 8 kv heads x 128 x 2 bytes
        CHECK(FlopModel(shape_of("llama-3.1-8b")).kv_bytes_per_token() == doctest::Approx(131072));
        // MLA keeps the 512-wide latent and 64 rope dims per layer: 61 x 576 x 2
        CHECK(FlopModel(shape_of("deepseek-v3")).kv_bytes_per_token() == doctest::Approx(70272));
        // gpt-oss: 18 full layers hold every token, 18 banded layers at most 128.
        const FlopModel oss(shape_of("gpt-oss-120b"));
        const double per_layer = 2.0 * 8 * 64 * 2;
        CHECK(oss.kv_bytes(1000) == doctest::Approx(per_layer * (18 * 1000 + 18 * 128)));
        CHECK(oss.kv_bytes(100) == doctest::Approx(per_layer * 36 * 100));
        // A banded layer scores fewer pairs once n passes its window.
        CHECK(oss.attention_flops_per_layer(4096, true) <
              oss.attention_flops_per_layer(4096, false));
        CHECK(oss.attention_flops_per_layer(64, true) ==
              doctest::Approx(oss.attention_flops_per_layer(64, false)));
    }

    TEST_CASE("profile fitting recovers a known curve and interpolates")
    {
        Profile p;
        p.model_layers = 32;
        const double c = 2e-5;
        const double a = 1e-6;
        const double b = 3e-11;
        for (const double n : {512.0, 1024.0, 4096.0, 16384.0, 32768.0}) {
            p.points.push_back({n, c + a * n + b * n * n, 0, 0, 0, 0});
        }
        p.fit();
        CHECK(p.fit_c == doctest::Approx(c).epsilon(1e-6));
        CHECK(p.fit_a == doctest::Approx(a).epsilon(1e-6));
        CHECK(p.fit_b == doctest::Approx(b).epsilon(1e-6));
        CHECK(p.seconds_per_layer(8192) ==
              doctest::Approx(c + a * 8192 + b * 8192 * 8192).epsilon(1e-6));
        CHECK(p.seconds(8192) == doctest::Approx(32 * p.seconds_per_layer(8192)));

        const auto back = Profile::from_json(p.to_json());
        REQUIRE(back);
        CHECK(back->points.size() == 5);
        CHECK(back->seconds_per_layer(2000) ==
              doctest::Approx(p.seconds_per_layer(2000)).epsilon(1e-9));
        CHECK(!Profile::from_json("{\"points\": []}"));
        CHECK(!Profile::from_json("not json"));
    }

    TEST_CASE("a modelled profile runs every length at the assumed share of the peak")
    {
        const auto* h200 = test::rules().find_gpu("H200");
        REQUIRE(h200 != nullptr);
        const auto p = modelled_profile(shape_of("llama-3.1-8b"), *h200, true, 0.5, {8192});
        CHECK(!p.measured);
        // 1.32e14 FLOPs at 494.5 TFLOP/s: 0.267 s for the model.
        CHECK(p.seconds(8192) == doctest::Approx(0.267).epsilon(0.01));
    }

    TEST_CASE("the blocked online-softmax attention equals the naive reference")
    {
        std::mt19937 rng(7);
        for (const AttentionShape shape :
             {AttentionShape{77, 4, 2, 16}, AttentionShape{64, 2, 2, 8},
              AttentionShape{1, 8, 1, 32}, AttentionShape{130, 6, 3, 24}}) {
            const auto q =
                random(static_cast<std::size_t>(shape.tokens) * shape.heads * shape.dim, rng);
            const auto k =
                random(static_cast<std::size_t>(shape.tokens) * shape.kv_heads * shape.dim, rng);
            const auto v =
                random(static_cast<std::size_t>(shape.tokens) * shape.kv_heads * shape.dim, rng);
            const auto naive = attention_naive(shape, q, k, v);
            for (const int tile : {1, 7, 32, 64}) {
                const auto blocked = attention_blocked(shape, q, k, v, tile);
                CHECK_MESSAGE(relative_error(blocked, naive) < 1e-5, "n=", shape.tokens,
                              " tile=", tile);
            }
        }
    }

    TEST_CASE("causality: the first token attends only to itself")
    {
        const AttentionShape shape{3, 1, 1, 2};
        const std::vector<float> q = {1, 0, 1, 0, 1, 0};
        const std::vector<float> k = {1, 0, 0, 1, 1, 1};
        const std::vector<float> v = {1, 2, 3, 4, 5, 6};
        const auto out = attention_blocked(shape, q, k, v, 2);
        CHECK(out[0] == doctest::Approx(1));
        CHECK(out[1] == doctest::Approx(2));
    }
}
