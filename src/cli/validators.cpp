#include "cli/validators.hpp"

#include "ruleset/rules.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

namespace cachewise::cli {

std::string
in_words(const std::vector<std::string>& values)
{
    std::string out;
    for (std::size_t i = 0; i < values.size(); ++i) {
        out += i == 0 ? "" : (i + 1 == values.size() ? " or " : ", ");
        out += values[i];
    }
    return out;
}

CLI::Validator
at_least(long long minimum)
{
    return CLI::Validator(
        [minimum](std::string& value) -> std::string {
            char* end = nullptr;
            const long long n = std::strtoll(value.c_str(), &end, 10);
            if (value.empty() || end != value.c_str() + value.size()) {
                return fmt::format("expected a whole number, not \"{}\"", value);
            }
            return n < minimum ? fmt::format("must be at least {} (got {})", minimum, n) : "";
        },
        "");
}

CLI::Validator
one_of(const std::vector<std::string>& values)
{
    return CLI::Validator(
        [values](std::string& value) -> std::string {
            if (std::find(values.begin(), values.end(), value) != values.end()) {
                return "";
            }
            return fmt::format("expected {}, not \"{}\"", in_words(values), value);
        },
        "");
}

CLI::Validator
policy_name()
{
    return one_of(std::vector<std::string>(std::begin(ruleset::k_provider_names),
                                           std::end(ruleset::k_provider_names)));
}

} // namespace cachewise::cli
