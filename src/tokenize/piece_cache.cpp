#include "tokenize/piece_cache.hpp"

#include <xxhash.h>

#include <algorithm>
#include <array>
#include <cstring>

namespace cachewise::tokenize {

namespace {} // namespace

PieceCache::PieceCache() : m_slots(k_min_slots) {}

PieceCache::Key
PieceCache::long_key(std::string_view piece)
{
    Key k{{0, 0}, 0};
    if (piece.size() > k_max_piece) {
        return k;
    }
    const std::size_t n = std::min(piece.size(), k_head);
    std::array<char, k_head> head{};
    std::memcpy(head.data(), piece.data(), n);
    std::memcpy(&k.head[0], head.data(), 8);
    std::memcpy(&k.head[1], head.data() + 8, 8);
    k.hash = piece.size() <= k_head ? mix(k.head[0], k.head[1], piece.size())
                                    : XXH3_64bits(piece.data(), piece.size());
    return k;
}

// The slot holds `piece` (whose key is `key`).
bool
PieceCache::same(const Slot& s, std::string_view piece, const Key& key) const
{
    if (s.head[0] != key.head[0] || s.head[1] != key.head[1] || s.key_length != piece.size()) {
        return false;
    }
    return piece.size() <= k_head ||
           std::string_view(m_keys).substr(s.key, piece.size() - k_head) == piece.substr(k_head);
}

std::optional<std::span<const TokenId>>
PieceCache::find(std::string_view piece, const Key& key) const
{
    if (piece.size() > k_max_piece) {
        return std::nullopt;
    }
    const std::size_t mask = m_slots.size() - 1;
    std::size_t slot = key.hash & mask;
    while (m_slots[slot].token_count != 0) {
        const Slot& s = m_slots[slot];
        if (same(s, piece, key)) {
            if (s.token_count == 1) {
                return std::span<const TokenId>(&s.tokens, 1);
            }
            return std::span<const TokenId>(m_tokens.data() + s.tokens, s.token_count);
        }
        slot = (slot + 1) & mask;
    }
    return std::nullopt;
}

void
PieceCache::add(std::string_view piece, const Key& key, std::span<const TokenId> tokens)
{
    if (piece.size() > k_max_piece || tokens.empty() || tokens.size() > 0xFFFF) {
        return;
    }
    if ((m_used + 1) * 2 > m_slots.size()) {
        if (m_slots.size() < k_max_slots) {
            grow();
        } else {
            clear();
        }
    }
    Slot& s = m_slots[free_slot(key.hash)];
    s.head[0] = key.head[0];
    s.head[1] = key.head[1];
    s.key_length = static_cast<std::uint16_t>(piece.size());
    s.key = static_cast<std::uint32_t>(m_keys.size());
    if (piece.size() > k_head) {
        m_keys.append(piece.substr(k_head));
    }
    s.token_count = static_cast<std::uint16_t>(tokens.size());
    if (tokens.size() == 1) {
        s.tokens = tokens.front();
    } else {
        s.tokens = static_cast<std::uint32_t>(m_tokens.size());
        m_tokens.insert(m_tokens.end(), tokens.begin(), tokens.end());
    }
    ++m_used;
}

std::size_t
PieceCache::free_slot(std::uint64_t hash) const
{
    const std::size_t mask = m_slots.size() - 1;
    std::size_t slot = hash & mask;
    while (m_slots[slot].token_count != 0) {
        slot = (slot + 1) & mask;
    }
    return slot;
}

// The hash of the piece a slot holds, as key() made it.
std::uint64_t
PieceCache::hash_of(const Slot& s) const
{
    std::string piece(k_head, '\0');
    std::memcpy(piece.data(), s.head, k_head);
    piece.resize(std::min<std::size_t>(s.key_length, k_head));
    if (s.key_length > k_head) {
        piece += std::string_view(m_keys).substr(s.key, s.key_length - k_head);
    }
    return long_key(piece).hash;
}

void
PieceCache::grow()
{
    std::vector<Slot> old(m_slots.size() * 2);
    old.swap(m_slots);
    for (const Slot& s : old) {
        if (s.token_count != 0) {
            m_slots[free_slot(hash_of(s))] = s;
        }
    }
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
