#include "advise/placement.hpp"

#include "util/enum_names.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace cachewise::advise {

using model::Level;
using model::Request;

constexpr auto k_anchor_names =
    util::names_of<Anchor>({"end of tools", "end of system", "end of the stable head",
                            "end of the previous turn", "last user turn", "last block"});

std::string_view
to_string(Anchor anchor)
{
    return k_anchor_names[anchor];
}

const std::vector<Anchor>&
all_anchors()
{
    static const std::vector<Anchor> anchors = {Anchor::end_of_tools,   Anchor::end_of_system,
                                                Anchor::stable_head,    Anchor::previous_turn,
                                                Anchor::last_user_turn, Anchor::last_block};
    return anchors;
}

std::string
Placement::describe() const
{
    if (marks.empty()) {
        return "no breakpoints";
    }
    std::string out;
    for (const auto& m : marks) {
        out += fmt::format("{}{} ({})", out.empty() ? "" : ", ", to_string(m.anchor),
                           model::to_string(m.ttl));
    }
    return out;
}

namespace {

std::optional<std::size_t>
last_of_level(const Request& r, Level level)
{
    std::optional<std::size_t> out;
    for (std::size_t i = 0; i < r.segments.size(); ++i) {
        if (r.segments[i].path.level == level) {
            out = i;
        }
    }
    return out;
}

// The last segment of message `message`, counting from the end (0 = last).
std::optional<std::size_t>
end_of_message_from_end(const Request& r, int from_end,
                        std::optional<model::Role> role = std::nullopt)
{
    int seen = -1;
    int current = -1;
    for (std::size_t i = r.segments.size(); i-- > 0;) {
        const auto& s = r.segments[i];
        if (s.path.level != Level::messages) {
            break;
        }
        if (s.path.message != current) {
            current = s.path.message;
            if (role && s.role != *role) {
                continue;
            }
            if (++seen == from_end) {
                return i;
            }
        }
    }
    return std::nullopt;
}

std::optional<std::size_t>
anchor_index(Anchor a, const Request& r, std::size_t stable_head)
{
    if (r.segments.empty()) {
        return std::nullopt;
    }
    switch (a) {
    case Anchor::end_of_tools:
        return last_of_level(r, Level::tools);
    case Anchor::end_of_system:
        return last_of_level(r, Level::system);
    case Anchor::stable_head:
        return stable_head > 0
                   ? std::optional<std::size_t>(std::min(stable_head, r.segments.size()) - 1)
                   : std::nullopt;
    case Anchor::previous_turn:
        return end_of_message_from_end(r, 1);
    case Anchor::last_user_turn:
        return end_of_message_from_end(r, 0, model::Role::user);
    case Anchor::last_block:
        return r.segments.size() - 1;
    }
    return std::nullopt;
}

} // namespace

// Whether the prefix up to segment `k` surely reaches `minimum` (rule
// "Minimum cacheable length"): a counted prefix as it is, an estimated one
// with the error band to spare. A breakpoint the request has there already
// stays unless its estimate is below the minimum: taking away one that
// may well work would cost the user what it reads.
bool
reaches(const Request& r, std::size_t k, std::int64_t minimum, double band)
{
    const auto& s = r.segments[k];
    const bool last = k + 1 == r.segments.size();
    const bool counted = s.token_source == model::TokenSource::exact ||
                         (last && s.token_source != model::TokenSource::estimated) ||
                         s.cache_control.has_value();
    const auto tokens = static_cast<double>(s.cumulative_tokens);
    return (counted ? tokens : tokens * (1 - band)) >= static_cast<double>(minimum);
}

std::vector<model::Breakpoint>
resolve(const Placement& placement, const Request& r, std::size_t stable_head, std::int64_t minimum,
        double band, int max_breakpoints)
{
    std::vector<model::Breakpoint> out;
    for (const auto& m : placement.marks) {
        auto index = anchor_index(m.anchor, r, stable_head);
        // Walk back over blocks that cannot carry a marker.
        while (index && !r.segments[*index].cache_control_allowed) {
            index = *index > 0 ? std::optional<std::size_t>(*index - 1) : std::nullopt;
        }
        if (!index || !reaches(r, *index, minimum, band)) {
            continue;
        }
        const auto same = std::find_if(out.begin(), out.end(),
                                       [&](const auto& b) { return b.segment == *index; });
        if (same != out.end()) {
            if (m.ttl == model::Ttl::one_hour) {
                same->cache_control.ttl = model::Ttl::one_hour;
            }
            continue;
        }
        out.push_back(model::Breakpoint{*index, model::CacheControl{m.ttl}, false});
    }
    std::sort(out.begin(), out.end(),
              [](const auto& a, const auto& b) { return a.segment < b.segment; });
    if (static_cast<int>(out.size()) > max_breakpoints) {
        out.erase(out.begin(), out.end() - max_breakpoints);
    }
    bool seen_5m = false;
    for (auto& b : out) {
        if (seen_5m) {
            b.cache_control.ttl =
                model::Ttl::five_minutes; // rule "Mixing TTLs": 1h must come first
        }
        seen_5m = seen_5m || b.cache_control.ttl == model::Ttl::five_minutes;
    }
    return out;
}

std::optional<std::size_t>
previous_write_end(const Request& r, std::optional<std::size_t> after, std::size_t before)
{
    const std::size_t stop = after ? *after + 1 : 1; // k - 2 stays a segment
    for (std::size_t k = before; k > stop; --k) {
        const auto& s = r.segments[k - 1];
        if (s.path.level == Level::messages && s.role == model::Role::assistant &&
            r.segments[k - 2].role != model::Role::assistant) {
            return k - 2;
        }
    }
    return std::nullopt;
}

std::uint32_t
lookback_span(const Request& r, std::size_t from, std::size_t to)
{
    return r.segments[to].lookback_position - r.segments[from].lookback_position + 1;
}

Request
with_breakpoints(const Request& request, const std::vector<model::Breakpoint>& breakpoints)
{
    Request r = request;
    r.auto_cache_control.reset();
    r.breakpoints_logged = true;
    for (auto& s : r.segments) {
        s.cache_control.reset();
    }
    for (const auto& b : breakpoints) {
        r.segments[b.segment].cache_control = b.cache_control;
    }
    return r;
}

} // namespace cachewise::advise
