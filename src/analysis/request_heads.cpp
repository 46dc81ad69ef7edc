#include "analysis/request_heads.hpp"

#include "util/hash.hpp"

#include <algorithm>

namespace cachewise::analysis {

using model::Request;

namespace {

// A list element into its list's hash, each string with its length, so
// that ("ab", "c") and ("a", "bc") differ.
void
add_item(HashBuilder& hash, const std::string& text)
{
    hash.add_u64(text.size()).add(text);
}

void
add_item(HashBuilder& hash, const model::Param& p)
{
    add_item(hash, p.name);
    add_item(hash, p.value);
    hash.add_u64((static_cast<std::uint64_t>(p.present) << 8) |
                 static_cast<std::uint64_t>(p.level));
}

bool
same(const model::Param& a, const model::Param& b)
{
    return a.name == b.name && a.value == b.value && a.present == b.present && a.level == b.level;
}

bool
same(const std::string& a, const std::string& b)
{
    return a == b;
}

} // namespace

template <typename T>
std::uint32_t
RequestHeads::ListPool<T>::put(const std::vector<T>& list)
{
    if (list.empty()) {
        return 0;
    }
    HashBuilder hash;
    for (const auto& item : list) {
        add_item(hash, item);
    }
    const std::uint64_t key = hash.digest().low;
    if (const std::uint32_t* found = index.find(key); found != nullptr) {
        const auto& kept = lists[*found];
        if (kept.size() == list.size() &&
            std::equal(kept.begin(), kept.end(), list.begin(),
                       [](const T& a, const T& b) { return same(a, b); })) {
            return *found;
        }
        lists.push_back(list); // a 64-bit collision is merely not shared
        return static_cast<std::uint32_t>(lists.size() - 1);
    }
    lists.push_back(list);
    const auto id = static_cast<std::uint32_t>(lists.size() - 1);
    *index.try_emplace(key).first = id;
    return id;
}

RequestHeads::RequestHeads()
{
    m_strings.emplace_back(); // 0: ""
    m_string_index.emplace(m_strings.front(), 0);
}

std::uint32_t
RequestHeads::pool(std::string_view value)
{
    if (const auto it = m_string_index.find(value); it != m_string_index.end()) {
        return it->second;
    }
    m_strings.emplace_back(value);
    const auto id = static_cast<std::uint32_t>(m_strings.size() - 1);
    m_string_index.emplace(m_strings.back(), id);
    return id;
}

RequestHeads::Head
RequestHeads::compact(const Request& r)
{
    Head h;
    h.id = r.id;
    h.line = r.line;
    for (std::size_t k = 0; k < k_pooled.size(); ++k) {
        h.strings[k] = pool(r.*k_pooled[k]);
    }
    h.params = m_params.put(r.params);
    h.notes = m_notes.put(r.notes);
    h.format = r.format;
    h.prompt_logged = r.prompt_logged;
    h.breakpoints_logged = r.breakpoints_logged;
    h.explicit_mode = r.explicit_mode;
    h.auto_cache_control = r.auto_cache_control;
    h.started_at = r.started_at;
    h.first_token_at = r.first_token_at;
    h.ended_at = r.ended_at;
    h.usage = r.usage;
    h.token_scale = r.token_scale;
    if (r.partial_share || r.continuation || r.provider_miss_reason || r.cache_create) {
        h.rare = std::make_unique<Rare>(
            Rare{r.partial_share, r.continuation, r.provider_miss_reason, r.cache_create});
    }
    return h;
}

void
RequestHeads::push_back(const Request& head)
{
    m_heads.push_back(compact(head));
}

void
RequestHeads::set(std::size_t i, const Request& head)
{
    m_heads[i] = compact(head);
}

const std::string&
RequestHeads::stream(std::size_t i) const
{
    return m_strings[m_heads[i].strings[0]]; // k_pooled[0]: the stream
}

Request
RequestHeads::get(std::size_t i) const
{
    const Head& h = m_heads[i];
    Request r;
    r.id = h.id;
    for (std::size_t k = 0; k < k_pooled.size(); ++k) {
        r.*k_pooled[k] = m_strings[h.strings[k]];
    }
    r.line = h.line;
    r.format = h.format;
    r.started_at = h.started_at;
    r.first_token_at = h.first_token_at;
    r.ended_at = h.ended_at;
    r.params = m_params.lists[h.params];
    r.auto_cache_control = h.auto_cache_control;
    r.usage = h.usage;
    if (h.rare) {
        r.partial_share = h.rare->partial_share;
        r.continuation = h.rare->continuation;
        r.provider_miss_reason = h.rare->provider_miss_reason;
        r.cache_create = h.rare->cache_create;
    }
    r.explicit_mode = h.explicit_mode;
    r.prompt_logged = h.prompt_logged;
    r.breakpoints_logged = h.breakpoints_logged;
    r.notes = m_notes.lists[h.notes];
    r.token_scale = h.token_scale;
    return r;
}

void
RequestHeads::permute(const std::vector<std::size_t>& order)
{
    // In place, one cycle of the permutation at a time: a copy of the heads
    // would double the largest table the store holds.
    std::vector<bool> placed(order.size(), false);
    for (std::size_t start = 0; start < order.size(); ++start) {
        if (placed[start]) {
            continue;
        }
        Head head = std::move(m_heads[start]);
        std::size_t k = start;
        for (; order[k] != start; k = order[k]) {
            m_heads[k] = std::move(m_heads[order[k]]);
            placed[k] = true;
        }
        m_heads[k] = std::move(head);
        placed[k] = true;
    }
}

} // namespace cachewise::analysis
