#include "tokenize/normalize.hpp"
#include "tokenize/pretokenize.hpp"
#include "tokenize/utf8.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using namespace cachewise::tokenize;

namespace {

std::vector<std::string>
pieces(PreTokenizer kind, std::string_view text)
{
    std::vector<std::string_view> views;
    pre_tokenize(kind, text, views);
    return {views.begin(), views.end()};
}

using V = std::vector<std::string>;

} // namespace

TEST_SUITE("tokenize::pre_tokenize")
{
    TEST_CASE("cl100k: contractions, words with one leading character, digits in threes")
    {
        CHECK(pieces(PreTokenizer::cl100k, "I'm here, 12345 x") ==
              V{"I", "'m", " here", ",", " ", "123", "45", " x"});
        CHECK(pieces(PreTokenizer::cl100k, "(hello") == V{"(hello"});
    }

    TEST_CASE("cl100k: a space run keeps its last space for the next word")
    {
        CHECK(pieces(PreTokenizer::cl100k, "a   b") == V{"a", "  ", " b"});
        CHECK(pieces(PreTokenizer::cl100k, "a \n\n b") == V{"a", " \n\n", " b"});
    }

    TEST_CASE("cl100k's \\s++$ keeps trailing whitespace whole; llama3's older pattern does not")
    {
        CHECK(pieces(PreTokenizer::cl100k, "end \n ") == V{"end", " \n "});
        CHECK(pieces(PreTokenizer::llama3, "end \n ") == V{"end", " \n", " "});
    }

    TEST_CASE("qwen2 splits digits one by one")
    {
        CHECK(pieces(PreTokenizer::qwen2, "x 2026") == V{"x", " ", "2", "0", "2", "6"});
    }

    TEST_CASE("o200k: case runs, contractions after words, slashes after punctuation")
    {
        CHECK(pieces(PreTokenizer::o200k, "getHTTPResponse") == V{"get", "HTTPResponse"});
        CHECK(pieces(PreTokenizer::o200k, "HTTPServer") == V{"HTTPServer"});
        CHECK(pieces(PreTokenizer::o200k, "they'll WE'RE") == V{"they'll", " WE'RE"});
        CHECK(pieces(PreTokenizer::o200k, "a:// b") == V{"a", "://", " b"});
    }

    TEST_CASE("deepseek_v3: digits and CJK are split out first; punctuation may lead a word")
    {
        CHECK(pieces(PreTokenizer::deepseek_v3, "abc12345你好.txt") ==
              V{"abc", "123", "45", "你好", ".txt"});
        CHECK(pieces(PreTokenizer::deepseek_v3, "a  b") == V{"a", " ", " b"});
    }

    TEST_CASE("deepseek_v3: characters no alternative matches stay as pieces between matches")
    {
        CHECK(pieces(PreTokenizer::deepseek_v3, "a\x01\x02 b") == V{"a", "\x01\x02", " b"});
    }

    TEST_CASE("pieces cover the text exactly")
    {
        const std::string text =
            "Mixed: 中文 text, emoji 👍🏽, tabs\t\tand  spaces \r\n\r\nend";
        for (const auto kind : {PreTokenizer::cl100k, PreTokenizer::o200k, PreTokenizer::llama3,
                                PreTokenizer::qwen2, PreTokenizer::deepseek_v3}) {
            std::string joined;
            for (const auto& p : pieces(kind, text)) {
                CHECK(!p.empty());
                joined += p;
            }
            CHECK(joined == text);
        }
    }

    TEST_CASE("names round-trip")
    {
        CHECK(parse_pre_tokenizer("deepseek_v3") == PreTokenizer::deepseek_v3);
        CHECK(to_string(PreTokenizer::o200k) == "o200k");
        CHECK(!parse_pre_tokenizer("gpt2"));
    }
}

TEST_SUITE("tokenize::utf8")
{
    TEST_CASE("ill-formed bytes become one U+FFFD per maximal subpart, like TextDecoder")
    {
        CHECK(is_valid_utf8("plain ascii and é and 👍"));
        CHECK(!is_valid_utf8("\xC3"));
        CHECK(repair_utf8("a\xC3"
                          "b") == "a\xEF\xBF\xBD"
                                  "b");
        // E2 82 is one truncated sequence: one replacement, then the space.
        CHECK(repair_utf8("\xE2\x82 ") == "\xEF\xBF\xBD ");
        // A surrogate (ED A0 80): ED alone is a subpart, then two stray bytes.
        CHECK(repair_utf8("\xED\xA0\x80") == "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
        // An overlong (C0 AF): two replacements.
        CHECK(repair_utf8("\xC0\xAF") == "\xEF\xBF\xBD\xEF\xBF\xBD");
        CHECK(repair_utf8("\xF0\x9F\x98") == "\xEF\xBF\xBD");
    }
}

TEST_SUITE("tokenize::normalize")
{
    TEST_CASE("NFC composes decomposed text and leaves NFC text alone")
    {
        CHECK(to_nfc("cafe\xCC\x81") == std::optional<std::string>("caf\xC3\xA9"));
        CHECK(to_nfc("\xE1\x84\x80\xE1\x85\xA1") == std::optional<std::string>("\xEA\xB0\x80"));
        CHECK(!to_nfc("plain ASCII and caf\xC3\xA9"));
        CHECK(!to_nfc("\xE4\xBD\xA0\xE5\xA5\xBD")); // CJK: already NFC
    }
}
