#pragma once

#include "live/exact_counter.hpp"
#include "util/error.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace CLI {
class App;
}

namespace cachewise::cli {

// --exact-tokens and its server and key options, shared by suggest and chain.
struct ExactTokenCliOptions {
    bool enabled = false;
    std::optional<std::string> base_url;
    std::optional<std::string> api_key_file;
};
void add_exact_token_options(CLI::App& cmd, ExactTokenCliOptions& options);

// The counter --exact-tokens asks for (nothing without it); the server and
// key options without --exact-tokens are a usage error.
std::optional<live::ExactCounter> make_exact_counter(const ExactTokenCliOptions& options,
                                                     live::HttpClient& client,
                                                     std::string_view command);

// "exact counts: 1 prefix, 2 calls to count tokens, 0 from the cache".
std::string exact_summary(const live::ExactCounter& counter);

} // namespace cachewise::cli
