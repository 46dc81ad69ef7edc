#pragma once

#include "model/request.hpp"
#include "util/hash.hpp"

namespace cachewise::model {

// Identity chains. h0 encodes what every cache entry is scoped to (provider
// and model); each link is
//     h_k = XXH3-128(h_{k-1} || level parameters, where a level begins ||
//                    level, role, message start || XXH3-128(segment bytes))
// so two requests share a prefix up to segment k exactly when their chains
// agree up to k. Parameters enter at the level they invalidate (the
// provider's invalidation table): a changed tool_choice changes the chain
// from the first message on and leaves tools and system intact.
// `order` is the provider's render order; the parameters of its first level
// belong to the root.
Hash128 chain_root(const Request& request, Level first_level = Level::tools);

// Fills Segment::chain for every segment; segments are in `order`.
void compute_chain(Request& request, const std::vector<Level>& order = {Level::tools, Level::system,
                                                                        Level::messages});

// One link: the chain of `parent` extended by `segment`, which continues its
// level (a response message appended to the conversation).
Hash128 chain_link(const Hash128& parent, const Segment& segment);

// Assigns 1-based lookback positions. With `tool_runs_as_one`, a run of
// consecutive tool_use blocks shares one position, and so does a run of
// consecutive tool_result blocks (rule "The lookback window is 20 blocks").
void assign_lookback_positions(Request& request, bool tool_runs_as_one);

// Number of leading segments two chains share.
std::size_t shared_prefix(const Request& a, const Request& b);

} // namespace cachewise::model
