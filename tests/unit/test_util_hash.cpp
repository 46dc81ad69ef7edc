#include "util/hash.hpp"

#include <doctest/doctest.h>

#include <set>
#include <string>
#include <utility>

using cachewise::Hash128;
using cachewise::hash_bytes;
using cachewise::hash_pair;

TEST_SUITE("util::hash")
{
    TEST_CASE("hash_pair: one key per pair, the same for the same pair")
    {
        std::set<std::pair<std::uint64_t, std::uint64_t>> keys;
        const Hash128 a1 = hash_bytes("anthropic/org-1");
        const Hash128 a2 = hash_bytes("anthropic/org-2");
        for (int i = 0; i < 1000; ++i) {
            const Hash128 b = hash_bytes("segment " + std::to_string(i));
            for (const Hash128& a : {a1, a2}) {
                const Hash128 key = hash_pair(a, b);
                CHECK(keys.emplace(key.low, key.high).second);
                CHECK(hash_pair(a, b) == key);
            }
        }
        // A chain in two namespaces is two keys, and neither is the chain.
        const Hash128 chain = hash_bytes("system prompt");
        CHECK(hash_pair(a1, chain) != hash_pair(a2, chain));
        CHECK(hash_pair(a1, chain) != chain);
    }
}
