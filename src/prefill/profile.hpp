#pragma once

#include "util/expected.hpp"

#include <string>
#include <vector>

namespace cachewise::prefill {

// One measured (or modelled) length.
struct ProfilePoint {
    double tokens = 0;
    double seconds_per_layer = 0;
    double projection_seconds = 0; // per layer, where measured
    double attention_seconds = 0;
    double tflops = 0; // achieved on the layer
    double fraction_of_peak = 0;
};

// What prefill costs on one GPU for one model: points per length and a fitted
// curve t(n) = c + a·n + b·n² seconds per layer (least squares), which
// interpolates and extrapolates.
struct Profile {
    std::string gpu;
    std::string driver;
    std::string model;
    std::string dtype = "bf16";
    int model_layers = 0;
    int layers_benchmarked = 0;
    bool measured = false;         // false: the FLOP model at an assumed utilisation
    double max_relative_error = 0; // of the correctness gate
    std::vector<ProfilePoint> points;
    double fit_c = 0;
    double fit_a = 0;
    double fit_b = 0;

    // Fits the curve to the points (needs at least one).
    void fit();
    [[nodiscard]] double seconds_per_layer(double tokens) const;
    [[nodiscard]] double seconds(double tokens) const
    {
        return seconds_per_layer(tokens) * model_layers;
    }

    [[nodiscard]] std::string to_json() const;
    static Expected<Profile> from_json(std::string_view text);
};

} // namespace cachewise::prefill
