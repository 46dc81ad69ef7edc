#include "prefill/modelled.hpp"

namespace cachewise::prefill {

Profile
modelled_profile(const ruleset::ModelShape& model, const ruleset::GpuSpec& gpu, bool bf16,
                 double utilization, const std::vector<int>& tokens)
{
    const FlopModel flops(model);
    const double peak = (bf16 ? gpu.bf16_tflops : gpu.fp16_tflops) * 1e12;
    Profile p;
    p.gpu = gpu.id;
    p.model = model.id;
    p.dtype = bf16 ? "bf16" : "fp16";
    p.model_layers = model.layers;
    p.layers_benchmarked = 0;
    p.measured = false;
    for (const int n : tokens) {
        ProfilePoint point;
        point.tokens = n;
        const double per_layer = flops.flops(n) / model.layers;
        point.seconds_per_layer = per_layer / (peak * utilization);
        point.projection_seconds = flops.projection_flops_per_layer(n) / (peak * utilization);
        point.attention_seconds = point.seconds_per_layer - point.projection_seconds;
        point.tflops = peak * utilization / 1e12;
        point.fraction_of_peak = utilization;
        p.points.push_back(point);
    }
    p.fit();
    return p;
}

} // namespace cachewise::prefill
