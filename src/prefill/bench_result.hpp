#pragma once

#include "prefill/profile.hpp"

#include <optional>
#include <string>
#include <vector>

namespace cachewise::prefill {

// What `bench prefill` found, for report/bench_printer to render.
struct BenchResult {
    Profile profile;
    // F(n) of each point (prefill::FlopModel), the same for a measured run:
    // what a cached prefix of that many tokens saves.
    std::vector<double> model_flops;
    // Set when the profile is modelled: the assumption it rests on.
    struct Assumption {
        double utilization = 0;
        std::string gpu;
        double peak_tflops = 0; // dense, in the profile's dtype
    };
    std::optional<Assumption> assumption;
};

} // namespace cachewise::prefill
