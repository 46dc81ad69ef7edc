#include "helpers.hpp"
#include "tokenize/catalogue.hpp"
#include "tokenize/vocabulary_image.hpp"
#include "tokenize_helpers.hpp"
#include "util/file.hpp"

#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <vector>

using namespace cachewise;
using namespace cachewise::tokenize;

namespace {

// Every byte, some longer tokens (one at a sparse id) and merges, with
// traits unlike the defaults.
Tokenizer
small_tokenizer()
{
    Vocabulary v;
    for (int b = 0; b < 256; ++b) {
        v.add_token(static_cast<TokenId>(b), std::string(1, static_cast<char>(b)));
    }
    v.add_token(256, "he");
    v.add_token(257, "hel");
    v.add_token(300, "hello");
    v.finish();
    v.add_merge('h', 'e', 0, 256);
    v.add_merge(256, 'l', 1, 257);
    v.finish();
    return Tokenizer(TokenizerTraits{.name = "small",
                                     .pre_tokenizer = PreTokenizer::qwen2,
                                     .whole_piece_first = false,
                                     .nfc = true,
                                     .special_tokens = {{"<|end|>", 301}, {"<｜User｜>", 302}}},
                     std::move(v));
}

std::string
file_bytes(const std::string& path)
{
    auto bytes = read_file(path);
    REQUIRE(bytes.has_value());
    return *bytes;
}

void
put_bytes(const std::string& path, const std::string& bytes)
{
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

} // namespace

TEST_SUITE("tokenize::vocabulary_image")
{
    TEST_CASE("an image maps back to the same tokens, ids and merges")
    {
        const Tokenizer small = small_tokenizer();
        const Vocabulary& v = small.vocabulary();
        test::TempFile dir("", "unused");
        const std::string path = dir.dir() + "/small.vocab";
        const SourceStamp stamp{"ab", 1, 2, 3};
        REQUIRE(write_vocabulary_image(path, small, stamp).has_value());
        const auto mapped = read_vocabulary_image(path, stamp, "small");
        REQUIRE_MESSAGE(mapped.has_value(), (mapped ? "" : mapped.error()));
        CHECK((*mapped)->traits() == small.traits());
        const Vocabulary* read = &(*mapped)->vocabulary();
        CHECK(read->size() == v.size());
        CHECK(read->merge_count() == 2);
        for (TokenId id = 0; id < 310; ++id) {
            CHECK(read->bytes_of(id) == v.bytes_of(id));
        }
        CHECK(read->find("hello") == std::optional<TokenId>(300));
        CHECK(!read->find("hell"));
        CHECK(read->byte_token('x') == v.byte_token('x'));
        CHECK(read->find_merge(256, 'l')->merged == 257);
        CHECK(!read->find_merge('l', 'l'));
    }

    TEST_CASE("an image of another source, damaged or cut short is not used")
    {
        test::TempFile dir("", "unused");
        const std::string path = dir.dir() + "/small.vocab";
        const SourceStamp stamp{"ab", 1, 2, 3};
        REQUIRE(write_vocabulary_image(path, small_tokenizer(), stamp).has_value());

        CHECK(read_vocabulary_image(path, {"ab", 1, 5, 3}, "small").error().find("another") !=
              std::string::npos);
        const std::string whole = file_bytes(path);
        std::string flipped = whole;
        flipped[whole.size() - 60] ^= 1; // in the merge table
        put_bytes(path, flipped);
        CHECK(read_vocabulary_image(path, stamp, "small").error().find("damaged") !=
              std::string::npos);
        put_bytes(path, whole.substr(0, whole.size() - 8));
        CHECK(read_vocabulary_image(path, stamp, "small").error().find("damaged") !=
              std::string::npos);
        put_bytes(path, whole.substr(0, 40));
        CHECK(!read_vocabulary_image(path, stamp, "small").has_value());
        put_bytes(path, "CWVOCAB" + whole.substr(7, 1000));
        CHECK(!read_vocabulary_image(path, stamp, "small").has_value());
        CHECK(!read_vocabulary_image(dir.dir() + "/missing.vocab", stamp, "small").has_value());
    }

    TEST_CASE("the catalogue writes an image, reads it the next time, and rebuilds for a changed "
              "file")
    {
        test::TempFile dir("", "unused");
        const test::ScopedEnv env("CACHEWISE_VOCABULARY_CACHE", dir.dir() + "/images");
        // A --tokenizer-dir copy of o200k_base, whose time can change.
        const std::string user_dir = dir.dir() + "/mine";
        std::filesystem::create_directories(user_dir);
        const std::string copy = user_dir + "/o200k_base.tiktoken";
        std::filesystem::copy_file(test::tokenizer_dir() + "/o200k_base.tiktoken", copy);
        const auto ids_of = [&](std::string_view text) {
            auto c = Catalogue::load(test::tokenizer_dir(), user_dir);
            REQUIRE(c.has_value());
            const auto t = c->tokenizer(*c->find("o200k_base"));
            REQUIRE_MESSAGE(t.has_value(), (t ? "" : t.error()));
            std::vector<TokenId> ids;
            (*t)->encode(text, ids);
            return ids;
        };
        const std::string text = "Hello, world! 12345 naïve 東京 🙂 <|endoftext|>";
        const auto built = ids_of(text);
        const auto image =
            std::filesystem::directory_iterator(dir.dir() + "/images")->path().string();
        CHECK(image.find("o200k_base-") != std::string::npos);
        const auto written = std::filesystem::last_write_time(image);
        CHECK(ids_of(text) == built); // from the image
        CHECK(std::filesystem::last_write_time(image) == written);

        // The file changes (here only its time): read and checked again, the image rewritten.
        std::filesystem::last_write_time(copy, std::filesystem::last_write_time(copy) +
                                                   std::chrono::seconds(5));
        CHECK(ids_of(text) == built);
        CHECK(std::filesystem::last_write_time(image) != written);

        // tokenizer.json: the traits come from the file, so the image keeps them.
        const auto deepseek = [&] {
            auto c = Catalogue::load(test::tokenizer_dir(), std::nullopt);
            REQUIRE(c.has_value());
            const auto t = c->tokenizer(*c->find("deepseek_v3"));
            REQUIRE_MESSAGE(t.has_value(), (t ? "" : t.error()));
            std::vector<TokenId> ids;
            (*t)->encode(text, ids);
            return std::pair{(*t)->traits(), ids};
        };
        const auto deepseek_built = deepseek();
        CHECK(std::filesystem::exists(dir.dir() + "/images"));
        CHECK(deepseek() == deepseek_built); // from the image
        CHECK(deepseek_built.first.pre_tokenizer == PreTokenizer::deepseek_v3);

        // A changed file whose checksum differs is refused, image or not.
        std::ofstream(copy, std::ios::app) << "IQ== 999999\n";
        auto c = Catalogue::load(test::tokenizer_dir(), user_dir);
        REQUIRE(c.has_value());
        const auto refused = c->tokenizer(*c->find("o200k_base"));
        REQUIRE(!refused);
        CHECK(refused.error().find("sha256") != std::string::npos);
    }
}
