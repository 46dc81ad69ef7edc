#pragma once

#include "advise/placement.hpp"
#include "model/request.hpp"
#include "model/text_store.hpp"
#include "ruleset/rules.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cachewise::advise {

// The cost of a family of requests under one placement, replayed through the
// audit simulator (input side only: output does not depend on caching).
struct Replay {
    double cost_usd = 0;
    std::int64_t read = 0;
    std::int64_t input = 0;
    bool priced = true; // every request had a price
    [[nodiscard]] double hit_rate() const
    {
        return input > 0 ? static_cast<double>(read) / static_cast<double>(input) : 0;
    }
};

// Requests that share their first segment share a cache: a template family.
struct FamilyAdvice {
    std::string example; // a request id
    std::string provider;
    bool placeable = true; // cache_control breakpoints can be placed (Anthropic, Bedrock)
    std::vector<std::string> streams;
    std::size_t requests = 0;
    std::size_t stable_head = 0; // segments every request shares
    Replay current;              // simulated: the requests' own breakpoints
    // What the provider reported for the same requests, priced the same way;
    // nullopt unless every request of the family has usage. The simulation
    // knows only the log: a provider warmed by other traffic reads more.
    std::optional<Replay> reported;
    Placement suggested;
    Replay suggested_replay;
    // Every token shared with a partner read, or the simulation where it
    // reads more (DeepSeek's units reach past the partner): a lower bound of
    // the replays, not of what a provider warmed outside the log may charge.
    double ideal_cost_usd = 0;
    // Nothing found beats the requests' own placement: it is kept (advice
    // never costs more than what the user has).
    bool keeps_current = false;
    // Kept although a cheaper placement was found: it drops a breakpoint the
    // requests have, which the log's missing times do not let us judge.
    bool kept_untimed = false;
    // Kept although a cheaper placement was found: it drops a breakpoint,
    // and the family is one request, which cannot show reuse.
    bool kept_single = false;
    std::string note; // why the placement is not cachewise's to change, when it is not
};

struct Suggestion {
    std::vector<FamilyAdvice> families;
    // Per request id, the breakpoints the suggestion gives it.
    std::map<std::string, std::vector<model::Breakpoint>> breakpoints;
    std::vector<model::Request> requests; // in start order, with calibrated tokens
    std::vector<std::string> advice;      // reordering advice, one line each
};

// Whether cachewise places cache_control breakpoints for this request:
// providers that cache at cache_control markers (Anthropic and Bedrock,
// directly or through an OpenAI-format gateway). Others cache automatically
// (OpenAI, DeepSeek, Gemini): their advice is about prefix stability only.
bool placeable(const model::Request& request);
// The same for a cache policy name (a provider of rules/providers/).
bool placeable(std::string_view policy);

// From a log: replays each family under candidate placements (greedily
// adding the mark, anchor × TTL, that lowers the cost most, at most 4) and
// keeps the cheapest. Replays use each family's provider's simulator.
// `policy` (suggest --policy) replays every family with that cache instead
// of its provider's.
Suggestion suggest_from_log(std::vector<model::Request> requests, const model::TextStore& texts,
                            const ruleset::Rules& rules, std::string_view policy = {});

// From one request or template (no usage): breakpoints at the end of the
// longest stable prefix (before the first dynamic field or placeholder) and
// at the other stable boundaries (tools, system) that reach the minimum.
Suggestion suggest_for_request(model::Request request, const model::TextStore& texts,
                               const ruleset::Rules& rules,
                               const std::vector<std::string>& placeholders);

// `text` (the file `path` the suggestion was made from) with every request's
// markers replaced by the suggestion's: one request body (`single`) or an
// exchange log, line by line. Throws Error for a request that cannot be
// rewritten in place.
std::string rewrite_input(const std::string& path, const std::string& text,
                          const Suggestion& suggestion, bool single);

// Replays `requests` (in start order) through the cache of `policy` (empty:
// their provider's) with the breakpoints `placement` gives each; `placement`
// nothing = their own.
Replay replay(const std::vector<const model::Request*>& requests,
              const std::optional<Placement>& placement, std::size_t stable_head,
              const ruleset::Rules& rules, std::string_view policy = {});

} // namespace cachewise::advise
