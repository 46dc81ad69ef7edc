#pragma once

#include "account/usage_split.hpp"
#include "ruleset/rules.hpp"
#include "util/time.hpp"

#include <optional>
#include <string_view>

namespace cachewise::account {

using Money = ByClass<double>; // dollars by billing class

// The prices in force for `model` at `at` (unknown: the latest), with the
// long-prompt tier when the prompt exceeds it and the peak-hour tier in peak
// hours. Nothing for a model the rules do not price: it is "unpriced", never
// guessed.
std::optional<ruleset::PriceSet> prices_for(const ruleset::Pricing& pricing, std::string_view model,
                                            const std::optional<Timestamp>& at,
                                            std::int64_t prompt_tokens);

Money cost_of(const Split& split, const ruleset::PriceSet& prices);

} // namespace cachewise::account
