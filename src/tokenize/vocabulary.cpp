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

// What the adds and finish() build, kept by the vocabulary (and its clones)
// through m_backing.
struct Vocabulary::Owned {
    std::string bytes;
    std::vector<std::uint64_t> spans;
    std::vector<TokenId> slots;
    std::vector<PairSlot> pairs;
};

Vocabulary::Owned&
Vocabulary::owned()
{
    if (!m_owned) {
        m_owned = std::make_shared<Owned>();
    }
    return *m_owned;
}

bool
Vocabulary::add_token(TokenId id, std::string_view bytes)
{
    if (id == k_none || bytes.empty() || bytes.size() >= (1U << k_length_bits)) {
        return false;
    }
    auto& spans = owned().spans;
    if (id == spans.size()) {
        spans.push_back(k_no_span); // ids in order, as rank files have them
    } else if (id > spans.size()) {
        spans.resize(static_cast<std::size_t>(id) + 1, k_no_span);
    }
    if (spans[id] != k_no_span) {
        return false;
    }
    spans[id] = (static_cast<std::uint64_t>(m_owned->bytes.size()) << k_length_bits) | bytes.size();
    m_owned->bytes.append(bytes);
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
    owned().spans.reserve(tokens);
    m_owned->bytes.reserve(bytes);
}

void
Vocabulary::finish()
{
    Owned& o = owned();
    const std::size_t merge_count = m_tables.merge_count;
    m_tables = Tables{};
    m_tables.bytes = o.bytes;
    m_tables.spans = o.spans;
    m_tables.count = m_count;
    m_tables.byte_tokens.fill(k_none);
    o.slots.assign(table_size(m_count), k_none);
    const std::size_t mask = o.slots.size() - 1;
    for (TokenId id = 0; id < o.spans.size(); ++id) {
        if (o.spans[id] == k_no_span) {
            continue;
        }
        const auto bytes = bytes_of(id);
        std::size_t slot = hash_of(bytes) & mask;
        while (o.slots[slot] != k_none) {
            slot = (slot + 1) & mask;
        }
        o.slots[slot] = id;
        auto& byte_token = m_tables.byte_tokens[static_cast<unsigned char>(bytes[0])];
        if (bytes.size() == 1 && byte_token == k_none) {
            byte_token = id;
        }
    }
    m_tables.slots = o.slots;
    m_tables.merge_count = merge_count;
    if (!m_pending_merges.empty()) {
        build_pairs(o.pairs);
    }
    m_tables.pairs = o.pairs;
    m_backing = m_owned;
}

void
Vocabulary::build_pairs(std::vector<PairSlot>& pairs)
{
    pairs.assign(table_size(m_pending_merges.size()), PairSlot{});
    m_tables.merge_count = 0;
    const std::size_t mask = pairs.size() - 1;
    for (const auto& [key, merge] : m_pending_merges) {
        std::size_t slot = mix(key) & mask;
        while (pairs[slot].key != ~0ULL && pairs[slot].key != key) {
            slot = (slot + 1) & mask;
        }
        // The first (lowest-ranked) merge of a pair wins, as in tokenizer.json.
        if (pairs[slot].key == ~0ULL) {
            pairs[slot] = {key, merge};
            ++m_tables.merge_count;
        } else if (merge.rank < pairs[slot].merge.rank) {
            pairs[slot].merge = merge;
        }
    }
    m_pending_merges.clear();
    m_pending_merges.shrink_to_fit();
}

Vocabulary
Vocabulary::from_tables(const Tables& tables, std::shared_ptr<const void> backing)
{
    Vocabulary v;
    v.m_tables = tables;
    v.m_count = tables.count;
    v.m_backing = std::move(backing);
    return v;
}

std::optional<TokenId>
Vocabulary::find(std::string_view bytes) const
{
    const auto slots = m_tables.slots;
    if (slots.empty()) {
        return std::nullopt;
    }
    const std::size_t mask = slots.size() - 1;
    std::size_t slot = hash_of(bytes) & mask;
    while (slots[slot] != k_none) {
        if (bytes_of(slots[slot]) == bytes) {
            return slots[slot];
        }
        slot = (slot + 1) & mask;
    }
    return std::nullopt;
}

std::optional<Vocabulary::Merge>
Vocabulary::find_merge(TokenId left, TokenId right) const
{
    const auto pairs = m_tables.pairs;
    if (pairs.empty()) {
        return std::nullopt;
    }
    const std::uint64_t key = pair_key(left, right);
    const std::size_t mask = pairs.size() - 1;
    std::size_t slot = mix(key) & mask;
    while (pairs[slot].key != ~0ULL) {
        if (pairs[slot].key == key) {
            return pairs[slot].merge;
        }
        slot = (slot + 1) & mask;
    }
    return std::nullopt;
}

std::string_view
Vocabulary::bytes_of(TokenId id) const
{
    const auto spans = m_tables.spans;
    if (id >= spans.size() || spans[id] == k_no_span) {
        return {};
    }
    const std::uint64_t span = spans[id];
    return m_tables.bytes.substr(span >> k_length_bits, span & ((1U << k_length_bits) - 1));
}

std::size_t
Vocabulary::memory_bytes() const
{
    return m_tables.bytes.size() + m_tables.spans.size_bytes() + m_tables.slots.size_bytes() +
           m_tables.pairs.size_bytes();
}

} // namespace cachewise::tokenize
