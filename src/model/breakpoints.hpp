#pragma once

#include "model/request.hpp"

#include <optional>

namespace cachewise::model {

// Where the top-level automatic breakpoint lands: "the last cacheable block",
// walking back over blocks that cannot carry cache_control; none when no
// block can (rule "Automatic caching").
std::optional<std::size_t> automatic_breakpoint(const Request& request);

// Explicit block-level breakpoints plus the automatic one, in order.
struct Breakpoint {
    std::size_t segment = 0;
    CacheControl cache_control;
    bool automatic = false;
};
std::vector<Breakpoint> breakpoints(const Request& request);

} // namespace cachewise::model
