#include "model/thinking.hpp"

namespace cachewise::model {

bool
stripped_thinking(const Request& r, std::size_t i)
{
    if (r.segments[i].kind != SegmentKind::thinking) {
        return false;
    }
    for (std::size_t j = i + 1; j < r.segments.size(); ++j) {
        const auto& s = r.segments[j];
        if (s.message_start && s.role == Role::user) {
            return s.kind != SegmentKind::tool_result;
        }
    }
    return false;
}

void
drop_stripped_thinking_estimates(Request& r)
{
    for (std::size_t i = 0; i < r.segments.size(); ++i) {
        if (stripped_thinking(r, i)) {
            r.segments[i].estimate = 0;
        }
    }
}

} // namespace cachewise::model
