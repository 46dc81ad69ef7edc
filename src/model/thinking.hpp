#pragma once

#include "model/request.hpp"

#include <cstddef>

namespace cachewise::model {

// Whether thinking segment i of `r` is one a model that strips an earlier
// turn's thinking blocks leaves out: a user turn other than tool results
// follows its assistant turn (Anthropic rule "what invalidates the cache",
// thinking_kept_models). Whether the model strips at all is the rules'
// ProviderRules::strips_thinking.
bool stripped_thinking(const Request& r, std::size_t i);

// Sets to zero the estimates of the thinking segments a model that strips
// them leaves out (the caller asks the rules whether it does): they are
// neither read nor counted as input, so a reported total is shared among
// the other segments.
void drop_stripped_thinking_estimates(Request& r);

} // namespace cachewise::model
