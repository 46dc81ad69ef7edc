#pragma once

#include <algorithm>
#include <iterator>

namespace cachewise::util {

// The first element of `range` whose `member` equals `key`, or nullptr: the
// lookup of a short table by name, written once.
template <typename Range, typename Member, typename Key>
auto*
find_by(Range& range, Member member, const Key& key)
{
    const auto it = std::ranges::find(range, key, member);
    return it == std::ranges::end(range) ? nullptr : &*it;
}

} // namespace cachewise::util
