#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace cachewise::analysis {

enum class Severity { info, warning, error };
std::string_view to_string(Severity severity);

// Where in a request a finding points.
struct Location {
    std::string path;                  // segment path, e.g. "system[0]"
    std::optional<std::size_t> offset; // character offset inside the segment's text
    std::optional<std::int64_t> token; // token position in the prompt (estimated inside a segment)
};

struct Excerpt {
    std::string was; // the partner's text around the change, changed part marked «…»
    std::string now; // this request's text around the change
};

// One finding of any command: the shape every printer and CI gate reads
// (documented in man/cachewise.1, FINDINGS).
struct Finding {
    std::string rule; // stable id, "CW001"
    std::string name; // "prefix-changed"
    Severity severity = Severity::warning;
    std::string request; // request id as in `chain`
    std::string partner; // the earlier request it should have reused; empty when none
    std::string stream;
    Location location;
    std::string kind; // sub-kind: "system", "history-rewritten", "date", "tool_choice", ...
    std::optional<Excerpt> excerpt;
    std::int64_t tokens_lost = 0;
    std::optional<double> cost_usd; // extra cost of tokens_lost at the request's prices
    std::string message;
    // The request's place in its log, for file annotations.
    std::string file;
    std::uint64_t line = 0;      // 1-based; 0 when unknown
    std::uint64_t column = 0;    // 1-based; 0 when unknown
    std::size_t occurrences = 1; // identical findings folded into this one
};

} // namespace cachewise::analysis
