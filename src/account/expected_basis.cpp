#include "account/expected_basis.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace cachewise::account {

bool
documented_cache(std::string_view policy)
{
    return policy == "anthropic";
}

ExpectedBasis
expected_basis(const AuditResult& result)
{
    ExpectedBasis basis;
    if (!result.policy.empty()) {
        basis.kind = ExpectedBasis::Kind::forced_policy;
        basis.forced = result.policy;
    } else if (result.policies.empty()) {
        basis.kind = ExpectedBasis::Kind::none;
    } else if (result.policies.size() == 1 && documented_cache(result.policies.front())) {
        basis.kind = ExpectedBasis::Kind::anthropic;
    } else {
        basis.kind = ExpectedBasis::Kind::each_provider;
        basis.policies = result.policies;
    }
    for (const auto& p : result.policies) {
        if (!documented_cache(p)) {
            basis.estimated.push_back(p);
        }
    }
    return basis;
}

std::string
estimated_caveat(const ExpectedBasis& basis)
{
    const auto& estimated = basis.estimated;
    if (estimated.empty()) {
        return {};
    }
    return fmt::format("estimated: the {} cache{} rest{} on best-effort behaviour or uncertain "
                       "facts (man cachewise, PROVIDERS AND CACHES)",
                       fmt::join(estimated, ", "), estimated.size() == 1 ? "" : "s",
                       estimated.size() == 1 ? "s" : "");
}

} // namespace cachewise::account
