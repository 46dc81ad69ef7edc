#pragma once

#include "analysis/miss_diagnosis.hpp"
#include "report/format.hpp"

#include <functional>
#include <ostream>

namespace cachewise::report {

// Prints a command's report followed by the provider's diagnosis compared
// with cachewise's: a "Provider's diagnosis" section in text and Markdown, a
// "provider_diagnosis" member in JSON. Logs without diagnostics print the
// report unchanged.
void print_with_diagnosis(const analysis::DiagnosisSummary& summary, Format format,
                          const std::function<void(std::ostream&)>& print_report,
                          std::ostream& out);

} // namespace cachewise::report
