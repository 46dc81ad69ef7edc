#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace cachewise::tokenize {

using TokenId = std::uint32_t;

// A byte-level BPE vocabulary: the bytes of every token and, for
// tokenizer.json, the ranked merges of adjacent token pairs. tiktoken's
// rank files have no merge list: a pair merges when its concatenation is a
// token, ranked by that token (BpeMerger looks the bytes up). Token bytes
// live in one buffer; lookups are open-addressing tables (about 10 MiB for
// o200k_base's 200k tokens).
class Vocabulary {
public:
    struct Merge {
        std::uint32_t rank;
        TokenId merged;
    };
    struct PairSlot {
        std::uint64_t key = ~0ULL;
        Merge merge{};
    };
    // The built tables, as finish() leaves them or as an image on disk holds
    // them (vocabulary_image.hpp): views into memory that `backing` keeps.
    struct Tables {
        std::string_view bytes;                 // all token bytes
        std::span<const std::uint64_t> spans;   // by id: offset << 24 | length; ~0 for none
        std::span<const TokenId> slots;         // bytes -> id, open addressing
        std::span<const PairSlot> pairs;        // (left, right) -> merge
        std::array<TokenId, 256> byte_tokens{}; // the token of each single byte
        std::size_t count = 0;
        std::size_t merge_count = 0;
    };

    // Adds a token; ids need not be dense. Returns false when the bytes or
    // the id are already taken.
    bool add_token(TokenId id, std::string_view bytes);
    // Room for `tokens` ids and `bytes` bytes of tokens, ahead of the adds.
    void reserve(std::size_t tokens, std::size_t bytes);
    void add_merge(TokenId left, TokenId right, std::uint32_t rank, TokenId merged);
    // Builds the lookup tables, after the adds (and again after merges that
    // needed find(): the merge table is built from the merges added since).
    void finish();
    // A vocabulary over tables built before; `backing` owns their memory.
    static Vocabulary from_tables(const Tables& tables, std::shared_ptr<const void> backing);

    [[nodiscard]] std::optional<TokenId> find(std::string_view bytes) const;
    [[nodiscard]] std::optional<Merge> find_merge(TokenId left, TokenId right) const;
    // The token of a single byte; every byte-level vocabulary has all 256.
    [[nodiscard]] std::optional<TokenId> byte_token(unsigned char b) const
    {
        const TokenId t = m_tables.byte_tokens[b];
        return t == k_none ? std::nullopt : std::optional<TokenId>(t);
    }
    [[nodiscard]] std::string_view bytes_of(TokenId id) const;
    [[nodiscard]] std::size_t size() const { return m_tables.count; }
    [[nodiscard]] std::size_t merge_count() const { return m_tables.merge_count; }
    [[nodiscard]] const Tables& tables() const { return m_tables; }
    // Bytes held by the tables, for the memory figure of `tokens --stats`.
    [[nodiscard]] std::size_t memory_bytes() const;

private:
    static constexpr TokenId k_none = 0xFFFFFFFFU;

    struct Owned; // the tables the adds and finish() build
    Owned& owned();
    void build_pairs(std::vector<PairSlot>& pairs);

    std::shared_ptr<Owned> m_owned; // while building
    std::vector<std::pair<std::uint64_t, Merge>> m_pending_merges;
    std::size_t m_count = 0;

    Tables m_tables;
    std::shared_ptr<const void> m_backing; // m_owned once built, or a mapped image
};

} // namespace cachewise::tokenize
