#include "tokenize/piece_cache.hpp"

#include <xxhash.h>

namespace cachewise::tokenize {

namespace {

constexpr std::size_t k_slots = 1U << 17;
constexpr std::size_t k_max_used = k_slots / 2;

} // namespace

PieceCache::PieceCache() : m_slots(k_slots)
{
    m_keys.reserve(k_max_used * 8);
    m_tokens.reserve(k_max_used * 2);
}

std::optional<std::span<const TokenId>>
PieceCache::find(std::string_view piece) const
{
    if (piece.size() > k_max_piece) {
        return std::nullopt;
    }
    const std::uint64_t h = XXH3_64bits(piece.data(), piece.size());
    std::size_t slot = h & (k_slots - 1);
    while (m_slots[slot].token_count != 0) {
        const Slot& s = m_slots[slot];
        if (s.hash == h && std::string_view(m_keys).substr(s.key, s.key_length) == piece) {
            return std::span<const TokenId>(m_tokens.data() + s.tokens, s.token_count);
        }
        slot = (slot + 1) & (k_slots - 1);
    }
    return std::nullopt;
}

void
PieceCache::add(std::string_view piece, std::span<const TokenId> tokens)
{
    if (piece.size() > k_max_piece || tokens.empty() || tokens.size() > 0xFFFF) {
        return;
    }
    if (m_used >= k_max_used) {
        clear();
    }
    const std::uint64_t h = XXH3_64bits(piece.data(), piece.size());
    std::size_t slot = h & (k_slots - 1);
    while (m_slots[slot].token_count != 0) {
        slot = (slot + 1) & (k_slots - 1);
    }
    Slot& s = m_slots[slot];
    s.hash = h;
    s.key = static_cast<std::uint32_t>(m_keys.size());
    s.key_length = static_cast<std::uint16_t>(piece.size());
    s.tokens = static_cast<std::uint32_t>(m_tokens.size());
    s.token_count = static_cast<std::uint16_t>(tokens.size());
    m_keys.append(piece);
    m_tokens.insert(m_tokens.end(), tokens.begin(), tokens.end());
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
