#include "helpers.hpp"
#include "tokenize/loaders.hpp"
#include "tokenize_helpers.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

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
