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

const std::array<std::optional<std::int64_t> model::Usage::*, 11>
    RequestHeads::PackedUsage::k_counts = {
        &model::Usage::input_tokens,       &model::Usage::cache_read,
        &model::Usage::cache_write,        &model::Usage::cache_write_5m,
        &model::Usage::cache_write_1h,     &model::Usage::output_tokens,
        &model::Usage::prompt_tokens,      &model::Usage::cached_tokens,
        &model::Usage::cache_write_tokens, &model::Usage::hit_tokens,
        &model::Usage::miss_tokens};

RequestHeads::PackedUsage::PackedUsage(const std::optional<model::Usage>& usage)
{
    if (!usage) {
        return;
    }
    m_has = true;
    for (std::size_t k = 0; k < k_counts.size(); ++k) {
        if (const auto& count = (*usage).*k_counts[k]) {
            m_counts[k] = *count;
            m_present |= static_cast<std::uint16_t>(1U << k);
        }
    }
    if (usage->cost_usd) {
        m_cost_usd = *usage->cost_usd;
        m_present |= static_cast<std::uint16_t>(1U << k_counts.size());
    }
    m_dialect = usage->dialect;
    m_schema = usage->schema;
    m_origin = usage->origin;
    m_summed_from_iterations = usage->summed_from_iterations;
}

std::optional<model::Usage>
RequestHeads::PackedUsage::get() const
{
    if (!m_has) {
        return std::nullopt;
    }
    model::Usage u;
    for (std::size_t k = 0; k < k_counts.size(); ++k) {
        if ((m_present & (1U << k)) != 0) {
            u.*k_counts[k] = m_counts[k];
        }
    }
    if ((m_present & (1U << k_counts.size())) != 0) {
        u.cost_usd = m_cost_usd;
    }
    u.dialect = m_dialect;
    u.schema = m_schema;
    u.origin = m_origin;
    u.summed_from_iterations = m_summed_from_iterations;
    return u;
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
    h.counted_with_residual = r.counted_with_residual;
    h.auto_cache_control = r.auto_cache_control;
    h.started_at = r.started_at;
    h.first_token_at = r.first_token_at;
    h.ended_at = r.ended_at;
    h.usage = PackedUsage(r.usage);
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

const std::string&
RequestHeads::route(std::size_t i) const
{
    static_assert(k_pooled[8] == &model::Request::route);
    return m_strings[m_heads[i].strings[8]];
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
    r.usage = h.usage.get();
    if (h.rare) {
        r.partial_share = h.rare->partial_share;
        r.continuation = h.rare->continuation;
        r.provider_miss_reason = h.rare->provider_miss_reason;
        r.cache_create = h.rare->cache_create;
    }
    r.explicit_mode = h.explicit_mode;
    r.counted_with_residual = h.counted_with_residual;
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
