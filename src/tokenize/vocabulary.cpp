#include "tokenize/vocabulary.hpp"

// Inlined: tokens are a few bytes, and the load hashes 200k of them.
#define XXH_INLINE_ALL
#include <xxhash.h>

#include <bit>

namespace cachewise::tokenize {

namespace {

constexpr std::uint64_t k_no_span = ~0ULL;
constexpr unsigned k_length_bits = 24;

std::uint64_t
hash_of(std::string_view bytes)
{
    return XXH3_64bits(bytes.data(), bytes.size());
}

std::uint64_t
pair_key(TokenId left, TokenId right)
{
    return (static_cast<std::uint64_t>(left) << 32) | right;
}

std::uint64_t
mix(std::uint64_t key)
{
    key ^= key >> 33;
    key *= 0xFF51AFD7ED558CCDULL;
    key ^= key >> 33;
    return key;
}

// A power of two at least twice `n`: load factor at most one half.
std::size_t
table_size(std::size_t n)
{
    return std::bit_ceil(std::max<std::size_t>(16, n * 2));
}

} // namespace

bool
Vocabulary::add_token(TokenId id, std::string_view bytes)
{
    if (id == k_none || bytes.empty() || bytes.size() >= (1U << k_length_bits)) {
        return false;
    }
    if (id == m_spans.size()) {
        m_spans.push_back(k_no_span); // ids in order, as rank files have them
    } else if (id > m_spans.size()) {
        m_spans.resize(static_cast<std::size_t>(id) + 1, k_no_span);
    }
    if (m_spans[id] != k_no_span) {
        return false;
    }
    m_spans[id] = (static_cast<std::uint64_t>(m_bytes.size()) << k_length_bits) | bytes.size();
    m_bytes.append(bytes);
    ++m_count;
    return true;
}

void
Vocabulary::add_merge(TokenId left, TokenId right, std::uint32_t rank, TokenId merged)
{
    m_pending_merges.emplace_back(pair_key(left, right), Merge{rank, merged});
}

void
Vocabulary::reserve(std::size_t tokens, std::size_t bytes)
{
    m_spans.reserve(tokens);
    m_bytes.reserve(bytes);
}

void
Vocabulary::finish()
{
    m_byte_tokens.fill(k_none);
    m_slots.assign(table_size(m_count), k_none);
    const std::size_t mask = m_slots.size() - 1;
    for (TokenId id = 0; id < m_spans.size(); ++id) {
        if (m_spans[id] == k_no_span) {
            continue;
        }
        const auto bytes = bytes_of(id);
        std::size_t slot = hash_of(bytes) & mask;
        while (m_slots[slot] != k_none) {
            slot = (slot + 1) & mask;
        }
        m_slots[slot] = id;
        if (bytes.size() == 1 && m_byte_tokens[static_cast<unsigned char>(bytes[0])] == k_none) {
            m_byte_tokens[static_cast<unsigned char>(bytes[0])] = id;
        }
    }
    m_pairs.assign(table_size(m_pending_merges.size()), PairSlot{});
    const std::size_t pair_mask = m_pairs.size() - 1;
    for (const auto& [key, merge] : m_pending_merges) {
        std::size_t slot = mix(key) & pair_mask;
        while (m_pairs[slot].key != ~0ULL && m_pairs[slot].key != key) {
            slot = (slot + 1) & pair_mask;
        }
        // The first (lowest-ranked) merge of a pair wins, as in tokenizer.json.
        if (m_pairs[slot].key == ~0ULL) {
            m_pairs[slot].key = key;
            m_pairs[slot].merge = merge;
            ++m_merge_count;
        } else if (merge.rank < m_pairs[slot].merge.rank) {
            m_pairs[slot].merge = merge;
        }
    }
    m_pending_merges.clear();
    m_pending_merges.shrink_to_fit();
}

std::optional<TokenId>
Vocabulary::find(std::string_view bytes) const
{
    if (m_slots.empty()) {
        return std::nullopt;
    }
    const std::size_t mask = m_slots.size() - 1;
    std::size_t slot = hash_of(bytes) & mask;
    while (m_slots[slot] != k_none) {
        if (bytes_of(m_slots[slot]) == bytes) {
            return m_slots[slot];
        }
        slot = (slot + 1) & mask;
    }
    return std::nullopt;
}

std::optional<Vocabulary::Merge>
Vocabulary::find_merge(TokenId left, TokenId right) const
{
    if (m_pairs.empty()) {
        return std::nullopt;
    }
    const std::uint64_t key = pair_key(left, right);
    const std::size_t mask = m_pairs.size() - 1;
    std::size_t slot = mix(key) & mask;
    while (m_pairs[slot].key != ~0ULL) {
        if (m_pairs[slot].key == key) {
            return m_pairs[slot].merge;
        }
        slot = (slot + 1) & mask;
    }
    return std::nullopt;
}

std::string_view
Vocabulary::bytes_of(TokenId id) const
{
    if (id >= m_spans.size() || m_spans[id] == k_no_span) {
        return {};
    }
    const std::uint64_t span = m_spans[id];
    return std::string_view(m_bytes).substr(span >> k_length_bits,
                                            span & ((1U << k_length_bits) - 1));
}

std::size_t
Vocabulary::memory_bytes() const
{
    return m_bytes.capacity() + m_spans.capacity() * sizeof(std::uint64_t) +
           m_slots.capacity() * sizeof(TokenId) + m_pairs.capacity() * sizeof(PairSlot);
}

} // namespace cachewise::tokenize
