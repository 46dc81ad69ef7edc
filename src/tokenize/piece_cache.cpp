#include "tokenize/piece_cache.hpp"

#include <algorithm>
#include <cstring>

// Inlined: a piece is a few bytes, and a call into the shared library costs
// more than hashing them.
#define XXH_INLINE_ALL
#include <xxhash.h>

namespace cachewise::tokenize {

namespace {

constexpr std::size_t k_max_used = std::size_t{1} << 16; // half the slots

} // namespace

PieceCache::PieceCache() : m_slots(k_slots)
{
    m_keys.reserve(k_max_used * 4);
    m_tokens.reserve(k_max_used);
}

std::uint64_t
PieceCache::hash(std::string_view piece)
{
    return XXH3_64bits(piece.data(), piece.size());
}

// `piece` has the length of the slot's piece.
bool
PieceCache::same(const Slot& s, std::string_view piece) const
{
    const std::size_t head = std::min(piece.size(), k_head);
    if (std::memcmp(s.head.data(), piece.data(), head) != 0) {
        return false;
    }
    return piece.size() <= k_head ||
           std::string_view(m_keys).substr(s.key, piece.size() - k_head) == piece.substr(k_head);
}

std::optional<std::span<const TokenId>>
PieceCache::find(std::string_view piece, std::uint64_t hash) const
{
    if (piece.size() > k_max_piece) {
        return std::nullopt;
    }
    std::size_t slot = hash & (k_slots - 1);
    while (m_slots[slot].token_count != 0) {
        const Slot& s = m_slots[slot];
        if (s.hash == hash && s.key_length == piece.size() && same(s, piece)) {
            if (s.token_count == 1) {
                return std::span<const TokenId>(&s.tokens, 1);
            }
            return std::span<const TokenId>(m_tokens.data() + s.tokens, s.token_count);
        }
        slot = (slot + 1) & (k_slots - 1);
    }
    return std::nullopt;
}

void
PieceCache::add(std::string_view piece, std::uint64_t hash, std::span<const TokenId> tokens)
{
    if (piece.size() > k_max_piece || tokens.empty() || tokens.size() > 0xFFFF) {
        return;
    }
    if (m_used >= k_max_used) {
        clear();
    }
    std::size_t slot = hash & (k_slots - 1);
    while (m_slots[slot].token_count != 0) {
        slot = (slot + 1) & (k_slots - 1);
    }
    Slot& s = m_slots[slot];
    s.hash = hash;
    s.key_length = static_cast<std::uint16_t>(piece.size());
    const std::size_t head = std::min(piece.size(), k_head);
    std::memcpy(s.head.data(), piece.data(), head);
    s.key = static_cast<std::uint32_t>(m_keys.size());
    m_keys.append(piece.substr(head));
    s.token_count = static_cast<std::uint16_t>(tokens.size());
    if (tokens.size() == 1) {
        s.tokens = tokens.front();
    } else {
        s.tokens = static_cast<std::uint32_t>(m_tokens.size());
        m_tokens.insert(m_tokens.end(), tokens.begin(), tokens.end());
    }
    ++m_used;
}

void
PieceCache::clear()
{
    std::fill(m_slots.begin(), m_slots.end(), Slot{});
    m_keys.clear();
    m_tokens.clear();
    m_used = 0;
}

} // namespace cachewise::tokenize
