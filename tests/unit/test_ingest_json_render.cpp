#include "ingest/json_render.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <random>
#include <string>

using namespace cachewise;
using namespace cachewise::ingest;

namespace {

std::string
canonical(std::string_view text)
{
    std::string out;
    append_json_string(out, text);
    return out;
}

} // namespace

TEST_SUITE("ingest::json_render")
{
    TEST_CASE("a canonical token is its own rendering, any other is rendered again")
    {
        CHECK(is_canonical_token(R"("plain")"));
        CHECK(is_canonical_token(R"("a\"b\\c\nd\te\r\b\f\u001b\u0000")"));
        CHECK(is_canonical_token(R"("")"));
        CHECK_FALSE(is_canonical_token(R"("a\/b")"));         // '/' needs no escape
        CHECK_FALSE(is_canonical_token(R"("\u0041")"));       // 'A'
        CHECK_FALSE(is_canonical_token(R"("\u000a")"));       // has a short escape
        CHECK_FALSE(is_canonical_token(R"("\u001B")"));       // upper-case hex
        CHECK_FALSE(is_canonical_token(R"("\u00e9")"));       // not a control character
        CHECK_FALSE(is_canonical_token("\"tab\tas it is\"")); // control character unescaped
        CHECK_FALSE(is_canonical_token("unquoted"));
    }

    TEST_CASE("exactly the tokens append_json_string writes are canonical")
    {
        // Random escapes, canonical or not: a token is canonical exactly
        // when escaping its value again gives it back.
        const std::vector<std::string> pieces = {
            "a",       "word ",    "\\n",     "\\t",     "\\\"",    "\\\\", "\\/",
            "\\u001b", "\\u001B",  "\\u000a", "\\u0041", "\\u00e9", "\\b",  "\\f",
            "\\r",     "\xC3\xA9", "\\u0000", "\\u007f", "xyz"};
        std::mt19937 rng(13);
        for (int round = 0; round < 5000; ++round) {
            std::string token = "\"";
            for (int n = static_cast<int>(rng() % 40); n > 0; --n) {
                token += pieces[rng() % pieces.size()];
            }
            token += "\"";
            const std::string value = nlohmann::json::parse(token).get<std::string>();
            INFO(token);
            CHECK(is_canonical_token(token) == (canonical(value) == token));
            CHECK(is_canonical_token(canonical(value)));
        }
    }
}
