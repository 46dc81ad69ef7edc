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

void
BpeMerger::push(const Vocabulary& vocab, std::int32_t left)
{
    if (left < 0) {
        return;
    }
    const std::int32_t right = m_symbols[static_cast<std::size_t>(left)].next;
    if (right < 0) {
        return;
    }
    const TokenId a = m_symbols[static_cast<std::size_t>(left)].id;
    const TokenId b = m_symbols[static_cast<std::size_t>(right)].id;
    if (const auto m = vocab.find_merge(a, b)) {
        m_heap.push_back({m->rank, left, a, b});
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
        m_symbols[static_cast<std::size_t>(i)] = {vocab.byte_token(byte).value_or(0), i - 1,
                                                  i + 1 < n ? i + 1 : -1};
    }
    m_heap.clear();
    for (std::int32_t i = 0; i + 1 < n; ++i) {
        push(vocab, i);
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
        const auto m = vocab.find_merge(c.left_id, c.right_id);
        left.id = m->merged;
        const std::int32_t gone = left.next;
        left.next = m_symbols[static_cast<std::size_t>(gone)].next;
        m_symbols[static_cast<std::size_t>(gone)].id = 0xFFFFFFFFU; // dead
        if (left.next >= 0) {
            m_symbols[static_cast<std::size_t>(left.next)].prev = c.left;
        }
        if (left.prev >= 0) {
            push(vocab, left.prev);
        }
        push(vocab, c.left);
    }
    for (std::int32_t i = n > 0 ? 0 : -1; i >= 0; i = m_symbols[static_cast<std::size_t>(i)].next) {
        out.push_back(m_symbols[static_cast<std::size_t>(i)].id);
    }
}

} // namespace cachewise::tokenize
