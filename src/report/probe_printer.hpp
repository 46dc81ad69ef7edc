#pragma once

#include "live/probe.hpp"
#include "report/format.hpp"

#include <nlohmann/json.hpp>

#include <ostream>

namespace cachewise::report {

// probe's result for people: the plan (a dry run stops there), then one line
// per call beside the simulator's prediction, and the findings.
void print_probe(const live::ProbeResult& result, std::ostream& out);

// {schema_version, provider, model, dry_run, request: {...}, calls: [...],
// predicted: [...], findings: [...]} (documented in man/cachewise.1).
nlohmann::ordered_json probe_to_json(const live::ProbeResult& result);

// Text or JSON.
void print_probe(const live::ProbeResult& result, Format format, std::ostream& out);

} // namespace cachewise::report
