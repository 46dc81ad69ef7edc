#pragma once

#include "util/expected.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace cachewise::live {

// An API key and where it came from ("ANTHROPIC_API_KEY", "--api-key-file
// key.txt"). The value is never printed: outputs show `origin` only, and
// redact() scrubs it from any text that might echo it (a provider's error
// message, a libcurl detail).
struct ApiKey {
    std::string value;
    std::string origin;
};

// The key for a provider: --api-key-file when given (first line, trimmed),
// else the provider's environment variable. Nothing when neither has one; an
// unreadable or empty key file is an error.
Expected<std::optional<ApiKey>> read_api_key(std::string_view env_variable,
                                             const std::optional<std::string>& key_file);

// `text` with every occurrence of the key replaced by "[key redacted]"
// (keys shorter than 8 characters are replaced too: the rule is simple).
std::string redact(std::string text, const std::optional<ApiKey>& key);

} // namespace cachewise::live
