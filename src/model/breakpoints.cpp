#include "model/breakpoints.hpp"

namespace cachewise::model {

std::optional<std::size_t>
automatic_breakpoint(const Request& request)
{
    if (!request.auto_cache_control) {
        return std::nullopt;
    }
    for (std::size_t i = request.segments.size(); i-- > 0;) {
        if (request.segments[i].cache_control_allowed) {
            return i;
        }
    }
    return std::nullopt;
}

std::vector<Breakpoint>
breakpoints(const Request& request)
{
    std::vector<Breakpoint> out;
    for (std::size_t i = 0; i < request.segments.size(); ++i) {
        if (request.segments[i].cache_control) {
            out.push_back(Breakpoint{i, *request.segments[i].cache_control, false});
        }
    }
    if (const auto at = automatic_breakpoint(request)) {
        // An explicit marker with the same TTL on that block makes it a no-op.
        const auto& existing = request.segments[*at].cache_control;
        if (!existing || !(*existing == *request.auto_cache_control)) {
            out.push_back(Breakpoint{*at, *request.auto_cache_control, true});
        }
    }
    return out;
}

} // namespace cachewise::model
