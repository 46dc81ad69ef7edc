#include "helpers.hpp"
#include "tokenize/loaders.hpp"
#include "tokenize/mapped_file.hpp"
#include "tokenize_helpers.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <vector>

using namespace cachewise;
using namespace cachewise::tokenize;

TEST_SUITE("tokenize::Catalogue")
{
    TEST_CASE("models map to their tokenizer by prefix, provider paths ignored")
    {
        auto& c = test::catalogue();
        CHECK(c.for_model("gpt-4o-mini-2024-07-18")->name == "o200k_base");
        CHECK(c.for_model("openai/GPT-4.1")->name == "o200k_base");
        CHECK(c.for_model("gpt-5.1")->name == "o200k_base");
        CHECK(c.for_model("gpt-4-turbo")->name == "cl100k_base");
        CHECK(c.for_model("deepseek-chat")->name == "deepseek_v3");
        CHECK(c.for_model("claude-sonnet-4-5") == nullptr);
    }

    TEST_CASE("every shipped vocabulary passes its checksum and stays under 64 MiB")
    {
        for (const auto& e : test::catalogue().entries()) {
            if (!e.shipped) {
                continue;
            }
            const auto& t = test::shipped_tokenizer(e.name);
            INFO(e.name);
            CHECK(t.vocabulary().memory_bytes() < (64U << 20));
            CHECK(t.vocabulary().size() > 100000);
            CHECK(!e.licence.empty());
            CHECK(e.sha256.size() == 64);
        }
    }

    TEST_CASE("a file that is not shipped asks for --tokenizer-dir")
    {
        auto& c = test::catalogue();
        const auto* llama = c.find("llama3");
        REQUIRE(llama != nullptr);
        CHECK(!llama->shipped);
        const auto t = c.tokenizer(*llama);
        REQUIRE(!t);
        CHECK(t.error().find("--tokenizer-dir") != std::string::npos);
    }

    TEST_CASE("a --tokenizer-dir without the file says so")
    {
        test::TempFile other("x", "unrelated.txt");
        auto c = Catalogue::load(test::tokenizer_dir(), other.dir());
        REQUIRE(c.has_value());
        const auto t = c->tokenizer(*c->find("llama3"));
        REQUIRE(!t);
        CHECK(t.error() == "tokenizer llama3: --tokenizer-dir " + other.dir() +
                               " holds no llama3.tokenizer.json");
    }

    TEST_CASE("a vocabulary whose checksum differs is refused, naming the file")
    {
        test::TempFile manifest(R"({"tokenizers": [{"name": "tiny", "file": "tiny.tiktoken",
            "format": "tiktoken", "pre_tokenizer": "o200k", "shipped": true,
            "sha256": "0000000000000000000000000000000000000000000000000000000000000000"}]})",
                                "manifest.json");
        const auto dir = std::filesystem::path(manifest.path()).parent_path();
        std::ofstream(dir / "tiny.tiktoken") << "IQ== 0\n";
        auto c = Catalogue::load(dir.string(), std::nullopt);
        REQUIRE(c.has_value());
        const auto t = c->tokenizer(*c->find("tiny"));
        REQUIRE(!t);
        CHECK(t.error().find("tiny.tiktoken: sha256 ") != std::string::npos);
    }

    TEST_CASE("manifest errors name the entry and the field")
    {
        test::TempFile manifest(R"({"tokenizers": [{"name": "x", "file": "x", "format": "bpe"}]})",
                                "manifest.json");
        const auto dir = std::filesystem::path(manifest.path()).parent_path();
        const auto c = Catalogue::load(dir.string(), std::nullopt);
        REQUIRE(!c);
        CHECK(c.error().find("tokenizers[0] (x): format: expected") != std::string::npos);
    }

    TEST_CASE("a rank file with a bad line says which line")
    {
        const auto t = load_tiktoken("IQ== 0\nnot-base64! 1\n", "r.tiktoken", TokenizerTraits{});
        REQUIRE(!t);
        CHECK(t.error() == "r.tiktoken:2: token is not base64");
        const auto u = load_tiktoken("IQ== 0\nIg== 5\n", "r.tiktoken", TokenizerTraits{});
        REQUIRE(!u);
        CHECK(u.error() == "r.tiktoken:2: rank 5 out of order (expected 1)");
    }

    TEST_CASE("a rank file's pages are given back as they are read, and the load is the same")
    {
        // 256 single-byte tokens, then every two-byte one: about 700 KB of lines.
        std::string text;
        std::string bytes;
        TokenId rank = 0;
        const auto line = [&](const std::string& token) {
            std::string b64;
            static const char* k =
                "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
            std::string t = token;
            const std::size_t pad = (3 - t.size() % 3) % 3;
            t.append(pad, '\0');
            for (std::size_t i = 0; i < t.size(); i += 3) {
                const auto v = (static_cast<unsigned char>(t[i]) << 16) |
                               (static_cast<unsigned char>(t[i + 1]) << 8) |
                               static_cast<unsigned char>(t[i + 2]);
                b64 += {k[(v >> 18) & 63], k[(v >> 12) & 63], k[(v >> 6) & 63], k[v & 63]};
            }
            b64.replace(b64.size() - pad, pad, std::string(pad, '='));
            text += b64 + " " + std::to_string(rank++) + "\n";
        };
        for (int b = 0; b < 256; ++b) {
            line(std::string(1, static_cast<char>(b)));
        }
        for (int a = 0; a < 256; ++a) {
            for (int b = 0; b < 256; ++b) {
                line(std::string{static_cast<char>(a), static_cast<char>(b)});
            }
        }
        test::TempFile file(text, "big.tiktoken");
        auto mapped = MappedFile::open(file.path());
        REQUIRE(mapped.has_value());
        std::vector<std::size_t> told;
        const auto t =
            load_tiktoken(mapped->bytes(), "big.tiktoken", TokenizerTraits{}, [&](std::size_t n) {
                told.push_back(n);
                mapped->release_before(n);
            });
        REQUIRE(t.has_value());
        CHECK(told.size() >= 2);
        CHECK(std::is_sorted(told.begin(), told.end()));
        CHECK(told.back() <= text.size());
        CHECK((*t)->vocabulary().size() == 256 + 65536);
        // The bytes past the last page given back are still there to read.
        CHECK(mapped->bytes().substr(told.back()) == std::string_view(text).substr(told.back()));
        const auto plain = load_tiktoken(text, "big.tiktoken", TokenizerTraits{});
        REQUIRE(plain.has_value());
        std::vector<TokenId> a;
        std::vector<TokenId> b;
        (*t)->encode("hello, world", a);
        (*plain)->encode("hello, world", b);
        CHECK(a == b);
    }

    TEST_CASE("a rank file without every byte is not byte-level")
    {
        const auto t = load_tiktoken("IQ== 0\n", "r.tiktoken", TokenizerTraits{});
        REQUIRE(!t);
        CHECK(t.error() == "r.tiktoken: no token for byte 0x00; not a byte-level BPE rank file");
    }

    TEST_CASE("tokenizer.json with an unknown pre-tokenizer or a normalizer is refused")
    {
        const auto t = load_tokenizer_json(
            R"({"normalizer": null, "pre_tokenizer": {"type": "ByteLevel"},
                "model": {"type": "BPE", "vocab": {}, "merges": []}})",
            "t.json", "t");
        REQUIRE(!t);
        CHECK(t.error().find("t.json: pre_tokenizer expressions not supported") == 0);
        CHECK(sha256_hex("abc").value_or("") ==
              "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    }
}
