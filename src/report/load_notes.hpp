#pragma once

#include "ingest/loader.hpp"

#include <ostream>

namespace cachewise::report {

// The end of a text report: what the load left out and why ("2 broken
// records skipped", "12 duplicate records counted once").
void print_load_notes(const ingest::LoadSummary& load, std::ostream& out);

} // namespace cachewise::report
