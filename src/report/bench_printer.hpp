#pragma once

#include "prefill/bench_result.hpp"
#include "report/format.hpp"

#include <iosfwd>
#include <string>

namespace cachewise::report {

// `bench prefill`: a table of one row per length (text), or the profile
// with the FLOPs of each row and the modelling assumption (json).
void print_bench(const prefill::BenchResult& result, Format format, std::ostream& out);

// Why nothing was measured nor modelled (exit 77), on standard error.
void print_bench_skipped(const std::string& reason, std::ostream& err);

} // namespace cachewise::report
