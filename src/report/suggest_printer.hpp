#pragma once

#include "advise/suggest.hpp"
#include "report/format.hpp"

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>

namespace cachewise::report {

// What `cachewise suggest` found: per template family (a log) or for one
// request (a template), with what the text needs beside the suggestion.
struct SuggestReport {
    const advise::Suggestion& suggestion;
    bool single = false; // one request or template, placed by its stable prefix
    // With `single`: the request model's minimum cacheable prefix, for "no
    // stable boundary reaches the minimum", and the estimator's error band,
    // for a stable prefix that is only borderline.
    std::int64_t minimum_tokens = 0;
    double band = 0;
};

// Text or JSON.
void print_suggestion(const SuggestReport& report, Format format, std::ostream& out);

// A unified diff of a rewrite; it quotes the input's lines, so it is
// printed escaped and redacted.
void print_diff(const std::string& diff, std::ostream& out);

} // namespace cachewise::report
