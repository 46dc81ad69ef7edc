#pragma once

#include "report/format.hpp"

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace cachewise::report {

// What `cachewise tokens` found for one input: the tokenizer, the count and,
// when asked, the ids.
struct TokensReport {
    std::string input;     // file name, or "-"
    std::string tokenizer; // o200k_base, ...
    std::string model;     // --model, when the tokenizer came from it
    std::uint64_t bytes = 0;
    std::uint64_t tokens = 0;
    bool with_ids = false;
    std::vector<std::uint32_t> ids;
};

void print_tokens(const TokensReport& report, Format format, std::ostream& out);

} // namespace cachewise::report
