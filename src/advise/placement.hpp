#pragma once

#include "model/breakpoints.hpp"
#include "model/request.hpp"

#include <optional>
#include <string>
#include <vector>

namespace cachewise::advise {

// Places a breakpoint can be anchored to, resolved per request.
enum class Anchor {
    end_of_tools,
    end_of_system,
    stable_head,    // the end of what every request of the family shares
    previous_turn,  // the end of the message before the last one: where the previous
                    // request of a growing conversation ended, so its entry is in reach
    last_user_turn, // the last block of the last user message
    last_block,     // the last block (a moving breakpoint)
};
std::string_view to_string(Anchor anchor);
const std::vector<Anchor>& all_anchors();

struct Mark {
    Anchor anchor;
    model::Ttl ttl = model::Ttl::five_minutes;
    friend bool operator==(const Mark&, const Mark&) = default;
};

// A placement policy: the same anchors applied to every request of a family.
struct Placement {
    std::vector<Mark> marks;
    [[nodiscard]] std::string describe() const;
};

// Whether the prefix up to segment `k` surely reaches `minimum` (rule
// "Minimum cacheable length"), an estimated one with the error `band` to
// spare.
bool reaches(const model::Request& request, std::size_t k, std::int64_t minimum, double band);

// The breakpoints a placement gives one request: anchors resolved to blocks
// that can carry cache_control, at most `max_breakpoints`, 1h before 5m (a
// later 1h mark is downgraded), only prefixes that reach `minimum`: an
// estimated one with the estimator's error `band` to spare (what lint calls
// borderline is not placed), a counted one (exact, or the whole prompt of a
// request scaled to its reported usage) or one the request marks already as
// it is.
std::vector<model::Breakpoint> resolve(const Placement& placement, const model::Request& request,
                                       std::size_t stable_head, std::int64_t minimum, double band,
                                       int max_breakpoints);

// Where the request that this body's latest reply answered ended, which is
// where a conversation's moving breakpoint wrote its entry: the block before
// the last assistant message in (after, before), or nothing (no reply there:
// a template, or the reply is at or before `after`).
std::optional<std::size_t> previous_write_end(const model::Request& request,
                                              std::optional<std::size_t> after, std::size_t before);

// The lookback positions a breakpoint at `to` checks to reach `from`, itself
// counted as the first (rule "The lookback window is 20 blocks": "at most 20
// positions per breakpoint, counting the breakpoint itself as the first"):
// an entry at `from` is found when this is at most the window.
std::uint32_t lookback_span(const model::Request& request, std::size_t from, std::size_t to);

// A copy of `request` with exactly these breakpoints (no automatic one).
model::Request with_breakpoints(const model::Request& request,
                                const std::vector<model::Breakpoint>& breakpoints);

} // namespace cachewise::advise
