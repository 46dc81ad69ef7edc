#include "cli/exact_tokens.hpp"

#include "report/exact_counts.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

namespace cachewise::cli {

void
add_exact_token_options(CLI::App& cmd, ExactTokenCliOptions& options)
{
    cmd.add_flag("--exact-tokens", options.enabled,
                 "Count the prefixes the decisions depend on with the provider's counting "
                 "endpoint (cached on disk)");
    cmd.add_option("--base-url", options.base_url,
                   "With --exact-tokens: the server to count with instead of the provider's")
        ->type_name("URL");
    cmd.add_option("--api-key-file", options.api_key_file,
                   "With --exact-tokens: read the API key from this file")
        ->type_name("FILE");
}

std::optional<live::ExactCounter>
make_exact_counter(const ExactTokenCliOptions& options, live::HttpClient& client,
                   std::string_view command)
{
    if (!options.enabled) {
        if (options.base_url || options.api_key_file) {
            throw Error(
                fmt::format("{}: --base-url and --api-key-file go with --exact-tokens", command));
        }
        return std::nullopt;
    }
    return std::optional<live::ExactCounter>(std::in_place, client, options.base_url,
                                             options.api_key_file, live::default_count_cache());
}

std::string
exact_summary(const live::ExactCounter& counter)
{
    return report::exact_count_text({counter.prefixes(), counter.calls(), counter.cached()});
}

} // namespace cachewise::cli
