#include "tokenize/bpe.hpp"

#include <algorithm>

namespace cachewise::tokenize {

namespace {

// Heap order: the lowest rank on top, then the leftmost position.
bool
after(const auto& a, const auto& b)
{
    return a.rank > b.rank || (a.rank == b.rank && a.left > b.left);
}

} // namespace

std::optional<TokenId>
BpeMerger::joined(const Vocabulary& vocab, std::string_view piece, const Symbol& l, const Symbol& r)
{
    if (m_pairs.empty() || m_pairs_used >= k_pair_slots / 2) {
        m_pairs.assign(k_pair_slots, PairSlot{});
        m_pairs_used = 0;
    }
    const std::uint64_t key = (static_cast<std::uint64_t>(l.id) << 32) | r.id;
    std::size_t slot = ((key * 0x9E3779B97F4A7C15ULL) >> 40) & (k_pair_slots - 1);
    while (m_pairs[slot].key != k_no_pair) {
        if (m_pairs[slot].key == key) {
            const TokenId t = m_pairs[slot].token;
            return t == k_no_token ? std::nullopt : std::optional<TokenId>(t);
        }
        slot = (slot + 1) & (k_pair_slots - 1);
    }
    const auto id = vocab.find(piece.substr(l.begin, r.end - l.begin));
    m_pairs[slot] = {key, id.value_or(k_no_token)};
    ++m_pairs_used;
    return id;
}

void
BpeMerger::push(const Vocabulary& vocab, std::string_view piece, std::int32_t left)
{
    if (left < 0) {
        return;
    }
    const Symbol& l = m_symbols[static_cast<std::size_t>(left)];
    if (l.next < 0) {
        return;
    }
    const Symbol& r = m_symbols[static_cast<std::size_t>(l.next)];
    std::optional<Vocabulary::Merge> m;
    if (vocab.merge_count() > 0) {
        m = vocab.find_merge(l.id, r.id);
    } else if (const auto id = joined(vocab, piece, l, r)) {
        m = Vocabulary::Merge{*id, *id};
    }
    if (m) {
        m_heap.push_back({m->rank, left, l.id, r.id, m->merged});
        std::push_heap(m_heap.begin(), m_heap.end(),
                       [](const Candidate& x, const Candidate& y) { return after(x, y); });
    }
}

void
BpeMerger::merge(const Vocabulary& vocab, std::string_view piece, std::vector<TokenId>& out)
{
    const auto n = static_cast<std::int32_t>(piece.size());
    m_symbols.resize(piece.size());
    for (std::int32_t i = 0; i < n; ++i) {
        const auto byte = static_cast<unsigned char>(piece[static_cast<std::size_t>(i)]);
        m_symbols[static_cast<std::size_t>(i)] = {
            vocab.byte_token(byte).value_or(0), i - 1, i + 1 < n ? i + 1 : -1,
            static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(i) + 1};
    }
    m_heap.clear();
    for (std::int32_t i = 0; i + 1 < n; ++i) {
        push(vocab, piece, i);
    }
    const auto cmp = [](const Candidate& x, const Candidate& y) { return after(x, y); };
    while (!m_heap.empty()) {
        std::pop_heap(m_heap.begin(), m_heap.end(), cmp);
        const Candidate c = m_heap.back();
        m_heap.pop_back();
        Symbol& left = m_symbols[static_cast<std::size_t>(c.left)];
        // Stale when either side has merged since the candidate was pushed.
        if (left.id != c.left_id || left.next < 0 ||
            m_symbols[static_cast<std::size_t>(left.next)].id != c.right_id) {
            continue;
        }
        left.id = c.merged;
        const std::int32_t gone = left.next;
        left.end = m_symbols[static_cast<std::size_t>(gone)].end;
        left.next = m_symbols[static_cast<std::size_t>(gone)].next;
        m_symbols[static_cast<std::size_t>(gone)].id = 0xFFFFFFFFU; // dead
        if (left.next >= 0) {
            m_symbols[static_cast<std::size_t>(left.next)].prev = c.left;
        }
        push(vocab, piece, left.prev);
        push(vocab, piece, c.left);
    }
    for (std::int32_t i = n > 0 ? 0 : -1; i >= 0; i = m_symbols[static_cast<std::size_t>(i)].next) {
        out.push_back(m_symbols[static_cast<std::size_t>(i)].id);
    }
}

} // namespace cachewise::tokenize
