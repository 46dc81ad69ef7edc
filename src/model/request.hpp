#pragma once

#include "model/segment.hpp"
#include "model/usage.hpp"
#include "util/time.hpp"

#include <optional>
#include <string>
#include <vector>

namespace cachewise::model {

// A request-level setting that invalidates caches from some level on (the
// invalidation table of rules/providers/<provider>.json). `value` is a
// canonical rendering; an absent parameter has present == false.
struct Param {
    std::string name;
    std::string value;
    bool present = false;
    Level level = Level::messages;
};

struct Request {
    std::string id;        // the record's own id, or <file>:<line>
    std::string stream;    // explicit session or sub-stream; empty when the log gives none
    std::string workspace; // cache isolation scope (workspace or API key) when the log names it
    std::string file;
    std::uint64_t line = 0;

    std::string provider = "anthropic";
    std::string model;
    std::optional<Timestamp> started_at;
    std::optional<Timestamp> first_token_at;
    std::optional<Timestamp> ended_at;

    std::vector<Param> params;
    std::optional<CacheControl> auto_cache_control; // top-level `cache_control`
    std::vector<Segment> segments;                  // in render order
    std::optional<Usage> usage;

    bool prompt_logged = true;      // false: only a response was logged
    bool breakpoints_logged = true; // false: the log drops cache_control (Claude Code)
    std::vector<std::string> notes;

    [[nodiscard]] std::int64_t
    prompt_tokens() const
    {
        return segments.empty() ? 0 : segments.back().cumulative_tokens;
    }
    [[nodiscard]] const Param*
    param(std::string_view name) const
    {
        for (const auto& p : params) {
            if (p.name == name) {
                return &p;
            }
        }
        return nullptr;
    }
};

} // namespace cachewise::model
