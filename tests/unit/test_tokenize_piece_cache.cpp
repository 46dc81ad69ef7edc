#include "tokenize/piece_cache.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using cachewise::tokenize::PieceCache;
using cachewise::tokenize::TokenId;

namespace {

// The key of a piece that is a whole text (its end is the text's end) or
// one inside a longer text (read as two words in place).
PieceCache::Key
key_in(const std::string& text, std::size_t pos, std::size_t length)
{
    return PieceCache::key(std::string_view(text).substr(pos, length), text.data() + text.size());
}

} // namespace

TEST_SUITE("tokenize::PieceCache")
{
    TEST_CASE("a piece's key is the same wherever its bytes lie")
    {
        const std::string alone = "hello";
        const std::string inside = "say hello to the world, twice over";
        const auto a = key_in(alone, 0, 5);
        const auto b = key_in(inside, 4, 5);
        CHECK(a.head[0] == b.head[0]);
        CHECK(a.head[1] == b.head[1]);
        CHECK(a.hash == b.hash);
        CHECK(key_in(inside, 4, 4).hash != a.hash); // "hell"
    }

    TEST_CASE("keeps pieces of every length up to 64 across growth, and finds only those")
    {
        PieceCache cache;
        std::vector<std::string> pieces;
        pieces.reserve(20000);
        for (int i = 0; i < 20000; ++i) {
            // Lengths 1 to 70: short ones fit the key, longer ones spill, the
            // longest are not kept at all.
            pieces.push_back(std::to_string(i) +
                             std::string(static_cast<std::size_t>(i % 70), 'x'));
        }
        for (std::size_t i = 0; i < pieces.size(); ++i) {
            const auto& p = pieces[i];
            const std::vector<TokenId> tokens(1 + i % 3, static_cast<TokenId>(i));
            cache.add(p, key_in(p, 0, p.size()), tokens);
        }
        for (std::size_t i = 0; i < pieces.size(); ++i) {
            const auto& p = pieces[i];
            const auto hit = cache.find(p, key_in(p, 0, p.size()));
            if (p.size() > PieceCache::k_max_piece) {
                CHECK(!hit);
                continue;
            }
            REQUIRE(hit);
            CHECK(hit->size() == 1 + i % 3);
            CHECK(hit->front() == static_cast<TokenId>(i));
        }
        const std::string other = "not-a-piece";
        CHECK(!cache.find(other, key_in(other, 0, other.size())));
        // Same first 16 bytes, different tails.
        const std::string a = "0123456789abcdefTAIL-A";
        const std::string b = "0123456789abcdefTAIL-B";
        cache.add(a, key_in(a, 0, a.size()), std::vector<TokenId>{1, 2});
        CHECK(!cache.find(b, key_in(b, 0, b.size())));
        CHECK(cache.find(a, key_in(a, 0, a.size()))->size() == 2);
    }
}
