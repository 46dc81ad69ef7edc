#include "tokenize/normalize.hpp"
#include "tokenize/pretokenize.hpp"
#include "tokenize/scanner.hpp"
#include "tokenize/unicode_class.hpp"
#include "tokenize/utf8.hpp"
#include "util/splitmix.hpp"

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

// Random text from fragments that test every branch of the expressions and
// where ASCII meets other scripts: letters of each case, contractions (and
// U+017F, a long s that folds to s), digits (ASCII, Arabic-Indic,
// fullwidth), punctuation, every kind of white space (NBSP and U+3000 too),
// CJK, emoji, combining marks and modifier letters.
std::string
random_text(cachewise::SplitMix64& rng, std::size_t fragments)
{
    static const std::vector<std::string_view> parts = {"a",
                                                        "b",
                                                        "s",
                                                        "t",
                                                        "d",
                                                        "m",
                                                        "l",
                                                        "e",
                                                        "v",
                                                        "r",
                                                        "A",
                                                        "B",
                                                        "S",
                                                        "T",
                                                        "LL",
                                                        "VE",
                                                        "RE",
                                                        "hello",
                                                        "World",
                                                        "HTTPServer",
                                                        "XML",
                                                        "iPhone",
                                                        "'",
                                                        "'s",
                                                        "'S",
                                                        "'ll",
                                                        "'Ve",
                                                        "'re",
                                                        "'x",
                                                        "'\xC5\xBF",
                                                        "0",
                                                        "12",
                                                        "345",
                                                        "6789",
                                                        "\xD9\xA3",
                                                        "\xEF\xBC\x91",
                                                        " ",
                                                        "  ",
                                                        "\t",
                                                        "\n",
                                                        "\r\n",
                                                        "\v",
                                                        "\f",
                                                        "\r",
                                                        " \n ",
                                                        "\xC2\xA0",
                                                        "\xE3\x80\x80",
                                                        ".",
                                                        ",",
                                                        "/",
                                                        "//",
                                                        "(",
                                                        ")",
                                                        "{",
                                                        "}",
                                                        "\"",
                                                        "-",
                                                        "_",
                                                        "$",
                                                        "+",
                                                        "<",
                                                        "=",
                                                        "~",
                                                        "`",
                                                        "\x01",
                                                        "\x7F",
                                                        "\xC3\xA9",
                                                        "\xC3\x89",
                                                        "caf\xC3\xA9",
                                                        "\xE4\xBD\xA0\xE5\xA5\xBD",
                                                        "\xF0\x9F\x91\x8D",
                                                        "e\xCC\x81",
                                                        "\xCA\xB0",
                                                        "\xC7\x85",
                                                        "\xE2\x80\x94",
                                                        "\xC2\xB2"};
    std::string out;
    for (std::size_t i = 0; i < fragments; ++i) {
        out += parts[rng.next() % parts.size()];
    }
    return out;
}

} // namespace

TEST_SUITE("tokenize::pre_tokenize")
{
    TEST_CASE("the scanner's constant ASCII classes are those of the Unicode tables")
    {
        for (char32_t c = 0; c < 128; ++c) {
            CAPTURE(static_cast<int>(c));
            CHECK(detail::k_ascii_classes[c] == char_class(c));
        }
    }

    TEST_CASE("the ASCII fast path splits as the Unicode scanner does, on random text")
    {
        cachewise::SplitMix64 rng(17);
        for (const auto kind : {PreTokenizer::o200k, PreTokenizer::cl100k, PreTokenizer::llama3,
                                PreTokenizer::qwen2}) {
            for (int round = 0; round < 3000; ++round) {
                const std::string text = random_text(rng, 1 + rng.next() % 24);
                std::vector<std::string_view> want;
                std::vector<std::string_view> got;
                detail::pre_tokenize_unicode(kind, text, want);
                pre_tokenize(kind, text, got);
                CAPTURE(to_string(kind));
                CAPTURE(text);
                REQUIRE(got == want);
                // piece_end, which Tokenizer::count walks with, piece by piece.
                std::vector<std::string_view> walked;
                for (std::size_t i = 0; i < text.size();) {
                    const std::size_t e = piece_end(kind, text, i);
                    walked.push_back(std::string_view(text).substr(i, e - i));
                    i = e;
                }
                REQUIRE(walked == want);
            }
        }
    }

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
    TEST_CASE("text is valid exactly when repairing it changes nothing, on random bytes")
    {
        // Lead bytes, continuation bytes and the edges of the table of
        // well-formed sequences (E0 A0, ED 9F, F0 90, F4 8F), some ASCII.
        static const unsigned char bytes[] = {'a',  ' ',  0x7F, 0x80, 0x8F, 0x90, 0x9F,
                                              0xA0, 0xBF, 0xC0, 0xC2, 0xDF, 0xE0, 0xE1,
                                              0xED, 0xEF, 0xF0, 0xF3, 0xF4, 0xF5, 0xFF};
        cachewise::SplitMix64 rng(5);
        for (int round = 0; round < 20000; ++round) {
            std::string text;
            const auto n = rng.next() % 40;
            for (std::uint64_t i = 0; i < n; ++i) {
                text.push_back(static_cast<char>(bytes[rng.next() % sizeof bytes]));
            }
            CAPTURE(text);
            REQUIRE(is_valid_utf8(text) == (repair_utf8(text) == text));
        }
    }

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
