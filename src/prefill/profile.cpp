#include "prefill/profile.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cmath>

namespace cachewise::prefill {

void
Profile::fit()
{
    // Least squares for t = c + a·n + b·n²; with fewer points, fewer terms.
    const std::size_t m = points.size();
    if (m == 0) {
        fit_a = fit_b = fit_c = 0;
        return;
    }
    if (m == 1) {
        fit_c = 0;
        fit_b = 0;
        fit_a = points[0].seconds_per_layer / points[0].tokens;
        return;
    }
    const std::size_t k = m == 2 ? 2 : 3;     // terms: n, n² (and 1 with three or more points)
    std::array<std::array<double, 4>, 3> a{}; // normal equations, augmented
    for (const auto& p : points) {
        const std::array<double, 3> x =
            k == 3 ? std::array<double, 3>{1, p.tokens, p.tokens * p.tokens}
                   : std::array<double, 3>{p.tokens, p.tokens * p.tokens, 0};
        for (std::size_t r = 0; r < k; ++r) {
            for (std::size_t c = 0; c < k; ++c) {
                a[r][c] += x[r] * x[c];
            }
            a[r][3] += x[r] * p.seconds_per_layer;
        }
    }
    // Gaussian elimination with partial pivoting.
    for (std::size_t col = 0; col < k; ++col) {
        std::size_t pivot = col;
        for (std::size_t r = col + 1; r < k; ++r) {
            if (std::abs(a[r][col]) > std::abs(a[pivot][col])) {
                pivot = r;
            }
        }
        std::swap(a[col], a[pivot]);
        if (std::abs(a[col][col]) < 1e-300) {
            continue;
        }
        for (std::size_t r = 0; r < k; ++r) {
            if (r != col) {
                const double f = a[r][col] / a[col][col];
                for (std::size_t c = col; c < 4; ++c) {
                    a[r][c] -= f * a[col][c];
                }
            }
        }
    }
    std::array<double, 3> sol{};
    for (std::size_t r = 0; r < k; ++r) {
        sol[r] = std::abs(a[r][r]) < 1e-300 ? 0 : a[r][3] / a[r][r];
    }
    if (k == 3) {
        fit_c = sol[0];
        fit_a = sol[1];
        fit_b = sol[2];
    } else {
        fit_c = 0;
        fit_a = sol[0];
        fit_b = sol[1];
    }
}

double
Profile::seconds_per_layer(double n) const
{
    return std::max(0.0, fit_c + fit_a * n + fit_b * n * n);
}

std::string
Profile::to_json() const
{
    nlohmann::ordered_json j;
    j["schema_version"] = 1;
    j["measured"] = measured;
    j["gpu"] = gpu;
    j["driver"] = driver;
    j["model"] = model;
    j["dtype"] = dtype;
    j["model_layers"] = model_layers;
    j["layers_benchmarked"] = layers_benchmarked;
    j["max_relative_error"] = max_relative_error;
    auto list = nlohmann::ordered_json::array();
    for (const auto& p : points) {
        list.push_back({{"tokens", p.tokens},
                        {"seconds_per_layer", p.seconds_per_layer},
                        {"seconds_model", p.seconds_per_layer * model_layers},
                        {"projection_seconds", p.projection_seconds},
                        {"attention_seconds", p.attention_seconds},
                        {"tflops", p.tflops},
                        {"fraction_of_peak", p.fraction_of_peak}});
    }
    j["points"] = list;
    j["fit"] = {
        {"form", "seconds per layer = c + a*n + b*n^2"}, {"c", fit_c}, {"a", fit_a}, {"b", fit_b}};
    return j.dump(2);
}

Expected<Profile>
Profile::from_json(std::string_view text)
{
    const auto j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("points") || !j["points"].is_array()) {
        return unexpected(
            std::string("not a prefill profile (expected an object with \"points\")"));
    }
    try {
        Profile p;
        p.measured = j.value("measured", false);
        p.gpu = j.value("gpu", "");
        p.driver = j.value("driver", "");
        p.model = j.value("model", "");
        p.dtype = j.value("dtype", "bf16");
        p.model_layers = j.value("model_layers", 0);
        p.layers_benchmarked = j.value("layers_benchmarked", 0);
        p.max_relative_error = j.value("max_relative_error", 0.0);
        for (const auto& x : j["points"]) {
            ProfilePoint point;
            point.tokens = x.at("tokens").get<double>();
            point.seconds_per_layer = x.at("seconds_per_layer").get<double>();
            point.projection_seconds = x.value("projection_seconds", 0.0);
            point.attention_seconds = x.value("attention_seconds", 0.0);
            point.tflops = x.value("tflops", 0.0);
            point.fraction_of_peak = x.value("fraction_of_peak", 0.0);
            if (point.tokens <= 0 || point.seconds_per_layer < 0) {
                return unexpected(std::string("points: tokens must be > 0 and seconds >= 0"));
            }
            p.points.push_back(point);
        }
        if (p.points.empty() || p.model_layers <= 0) {
            return unexpected(std::string("a profile needs points and model_layers"));
        }
        p.fit();
        return p;
    } catch (const nlohmann::json::exception& e) {
        return unexpected(fmt::format("bad field: {}", e.what()));
    }
}

} // namespace cachewise::prefill
