#pragma once

#include "prefill/flop_model.hpp"
#include "prefill/profile.hpp"

#include <vector>

namespace cachewise::prefill {

// A profile from the FLOP model alone: every length at `utilization` of the
// GPU's dense peak. Labelled modelled (measured = false) wherever it is shown.
Profile modelled_profile(const ruleset::ModelShape& model, const ruleset::GpuSpec& gpu, bool bf16,
                         double utilization, const std::vector<int>& tokens);

} // namespace cachewise::prefill
