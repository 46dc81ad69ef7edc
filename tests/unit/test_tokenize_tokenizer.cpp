// Token ids against the reference implementations (gpt-tokenizer,
// transformers.js), recorded in tests/tokenize/fixtures.json by
// tests/tokenize/make_fixtures.cjs, so that these tests need no node.
#include "tokenize_helpers.hpp"
#include "util/file.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

using namespace cachewise;
using namespace cachewise::tokenize;

namespace {

std::string
from_base64(const std::string& in)
{
    const std::string alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    unsigned acc = 0;
    int bits = 0;
    for (const char c : in) {
        const auto v = alphabet.find(c);
        if (v == std::string::npos) {
            break;
        }
        acc = (acc << 6) | static_cast<unsigned>(v);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out.push_back(static_cast<char>((acc >> bits) & 0xFFU));
        }
    }
    return out;
}

const nlohmann::json&
fixtures()
{
    static const nlohmann::json j = nlohmann::json::parse(
        read_file(std::string(CACHEWISE_SOURCE_DIR) + "/tests/tokenize/fixtures.json").value());
    return j;
}

void
check_fixtures(const Tokenizer& tokenizer, const std::string& name)
{
    const auto& cases = fixtures()["tokenizers"][name];
    REQUIRE(cases.size() >= 15);
    for (const auto& c : cases) {
        const std::string text = from_base64(c["text_base64"].get<std::string>());
        const auto want = c["ids"].get<std::vector<TokenId>>();
        std::vector<TokenId> got;
        tokenizer.encode(text, got);
        INFO(name << ": " << c["label"].get<std::string>());
        CHECK(got == want);
        CHECK(tokenizer.count(text) == want.size());
    }
}

} // namespace

TEST_SUITE("tokenize::Tokenizer")
{
    TEST_CASE("o200k_base gives the reference ids on every hard case")
    {
        check_fixtures(test::shipped_tokenizer("o200k_base"), "o200k_base");
    }

    TEST_CASE("cl100k_base gives the reference ids on every hard case")
    {
        check_fixtures(test::shipped_tokenizer("cl100k_base"), "cl100k_base");
    }

    TEST_CASE("deepseek_v3 (tokenizer.json) gives the reference ids on every hard case")
    {
        check_fixtures(test::shipped_tokenizer("deepseek_v3"), "deepseek_v3");
    }

    TEST_CASE("llama3 and qwen3 give the reference ids when their files are given")
    {
        // Not shipped; $CACHEWISE_TEST_TOKENIZER_DIR points at a folder
        // holding llama3.tokenizer.json and qwen3.tokenizer.json.
        const char* dir = std::getenv("CACHEWISE_TEST_TOKENIZER_DIR");
        if (dir == nullptr) {
            MESSAGE("llama3, qwen3: skipped, $CACHEWISE_TEST_TOKENIZER_DIR not set");
            return;
        }
        auto c = Catalogue::load(test::tokenizer_dir(), std::string(dir));
        REQUIRE(c.has_value());
        for (const std::string name : {"llama3", "qwen3"}) {
            auto t = c->tokenizer(*c->find(name));
            REQUIRE_MESSAGE(t.has_value(), (t ? "" : t.error()));
            check_fixtures(**t, name);
        }
    }

    TEST_CASE("a piece that repeats comes from the cache with the same ids")
    {
        const auto& t = test::shipped_tokenizer("deepseek_v3");
        std::vector<TokenId> first;
        std::vector<TokenId> second;
        t.encode("antidisestablishmentarianism antidisestablishmentarianism", first);
        t.encode("antidisestablishmentarianism antidisestablishmentarianism", second);
        CHECK(first == second);
        CHECK(first.size() >= 4);
    }

    TEST_CASE("a megabyte of one space merges in time (heap, not quadratic)")
    {
        const auto& t = test::shipped_tokenizer("o200k_base");
        const std::string spaces(1 << 20, ' ');
        const auto n = t.count(spaces + "x");
        CHECK(n > 1000);
        CHECK(n < (1 << 20) / 8);
    }

    TEST_CASE("special tokens are named by the manifest")
    {
        const auto& t = test::shipped_tokenizer("o200k_base");
        CHECK(t.special("<|endoftext|>") == TokenId{199999});
        CHECK(t.token_bytes(199999) == "<|endoftext|>");
        // Plain text never produces them: encode_ordinary.
        CHECK(t.count("<|endoftext|>") > 1);
    }

    TEST_CASE("count equals the ids' number when short pieces outnumber the short table")
    {
        // 40,000 distinct short words, twice, so that pieces clash in
        // ShortPieceCounts' 8,192 slots and are replaced and looked up again.
        std::string text;
        for (int round = 0; round < 2; ++round) {
            for (unsigned i = 0; i < 40000; ++i) {
                text += ' ';
                for (unsigned v = i * 2654435761U; v != 0; v /= 26) {
                    text += static_cast<char>('a' + v % 26);
                    if (text.back() == 'q') {
                        break;
                    }
                }
                text += i % 7 == 0 ? ".\n" : "";
            }
        }
        for (const auto* name : {"o200k_base", "cl100k_base", "deepseek_v3"}) {
            const auto& t = test::shipped_tokenizer(name);
            std::vector<TokenId> ids;
            t.encode(text, ids);
            INFO(name);
            CHECK(t.count(text) == ids.size());
            CHECK(t.count(text) == ids.size()); // the tables full of this text
        }
    }
}
