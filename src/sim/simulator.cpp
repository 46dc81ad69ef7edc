#include "sim/simulator.hpp"

#include "sim/anthropic_cache.hpp"
#include "sim/block_cache.hpp"
#include "sim/deepseek_cache.hpp"
#include "sim/gemini_cache.hpp"
#include "sim/openai_cache.hpp"
#include "util/enum_names.hpp"
#include "util/error.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace cachewise::sim {

constexpr auto k_reason_names =
    util::names_of<MissReason>({"expired", "concurrent", "lookback", "evicted"});

std::string_view
to_string(MissReason reason)
{
    return k_reason_names[reason];
}

bool
is_policy(std::string_view name)
{
    return std::ranges::find(ruleset::k_provider_names, name) !=
           std::ranges::end(ruleset::k_provider_names);
}

std::unique_ptr<CacheSimulator>
make_simulator(std::string_view policy, const ruleset::Rules& rules, const SimOptions& options)
{
    if (!is_policy(policy)) {
        throw Error(fmt::format("unknown cache policy \"{}\" (expected one of: {})", policy,
                                fmt::join(ruleset::k_provider_names, ", ")));
    }
    const auto& provider = rules.provider(policy);
    if (policy == "anthropic" || policy == "bedrock") {
        return std::make_unique<AnthropicCache>(provider, options);
    }
    if (policy == "openai") {
        return std::make_unique<OpenAICache>(provider, options);
    }
    if (policy == "deepseek") {
        return std::make_unique<DeepSeekCache>(provider, options);
    }
    if (policy == "gemini") {
        return std::make_unique<GeminiCache>(provider, options);
    }
    return std::make_unique<BlockCache>(provider, options);
}

std::string
scope_of(const model::Request& request)
{
    if (request.route.empty()) {
        return request.workspace;
    }
    return request.workspace + '\x1f' + request.route;
}

std::int64_t
visible_at(const model::Request& request, std::int64_t start, const SimOptions& options)
{
    if (request.first_token_at) {
        return request.first_token_at->micros;
    }
    if (!request.started_at) {
        // No times logged: requests are replayed in log order, each visible
        // to the next; concurrency is not judged.
        return start;
    }
    return start + static_cast<std::int64_t>(options.visibility_latency_seconds * 1e6);
}

} // namespace cachewise::sim
