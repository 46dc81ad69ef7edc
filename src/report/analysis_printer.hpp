#pragma once

#include "analysis/analyzer.hpp"
#include "ingest/loader.hpp"
#include "report/format.hpp"

#include <ostream>

namespace cachewise::report {

struct AnalysisPrintOptions {
    Format format = Format::text;
    bool details = false; // every break with its excerpt
    std::size_t top = 10;
};

// Prints the result of `cachewise analyze`: text for terminals, versioned
// JSON for tools, Markdown for pull-request comments.
void print_analysis(const analysis::AnalysisResult& result, const ingest::LoadSummary& load,
                    const AnalysisPrintOptions& options, std::ostream& out);

} // namespace cachewise::report
