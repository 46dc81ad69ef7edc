#pragma once

#include "analysis/finding.hpp"

#include <vector>

namespace cachewise::report {

// Findings quote logs and templates: every string a printer shows is
// escaped (no control character, no escape sequence, no line of its own)
// and redacted (no credential), in every output format. Run before any
// printing and before the baseline comparison, so fingerprints agree.
void make_printable(std::vector<analysis::Finding>& findings);

} // namespace cachewise::report
