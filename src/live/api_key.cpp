#include "live/api_key.hpp"

#include "util/file.hpp"

#include <fmt/format.h>

#include <cstdlib>

namespace cachewise::live {

namespace {

std::string_view
trimmed(std::string_view s)
{
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) {
        s.remove_prefix(1);
    }
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
        s.remove_suffix(1);
    }
    return s;
}

} // namespace

Expected<std::optional<ApiKey>>
read_api_key(std::string_view env_variable, const std::optional<std::string>& key_file)
{
    if (key_file) {
        auto text = read_file(*key_file);
        if (!text) {
            return unexpected(fmt::format("--api-key-file: {}", text.error()));
        }
        const std::string_view all = *text;
        const std::string_view line = trimmed(all.substr(0, all.find('\n')));
        if (line.empty()) {
            return unexpected(fmt::format(
                "--api-key-file {}: the first line is empty (expected the key)", *key_file));
        }
        return std::optional<ApiKey>(
            ApiKey{std::string(line), fmt::format("--api-key-file {}", *key_file)});
    }
    const std::string name(env_variable);
    const char* value = std::getenv(name.c_str());
    if (value == nullptr || trimmed(value).empty()) {
        return std::optional<ApiKey>();
    }
    return std::optional<ApiKey>(ApiKey{std::string(trimmed(value)), name});
}

std::string
redact(std::string text, const std::optional<ApiKey>& key)
{
    if (!key || key->value.empty()) {
        return text;
    }
    static constexpr std::string_view k_mask = "[key redacted]";
    for (auto at = text.find(key->value); at != std::string::npos;
         at = text.find(key->value, at + k_mask.size())) {
        text.replace(at, key->value.size(), k_mask);
    }
    return text;
}

} // namespace cachewise::live
