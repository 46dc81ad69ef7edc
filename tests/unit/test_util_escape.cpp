#include "util/escape.hpp"

#include <doctest/doctest.h>

#include <string>

using cachewise::ByteEscape;
using cachewise::escape_bytes;

TEST_SUITE("util::escape_bytes")
{
    const auto as_is = [](std::string& out, char c) { out.push_back(c); };

    TEST_CASE("a Markdown table cell escapes the bar that would end it")
    {
        CHECK(cachewise::markdown_cell("req|1 a|b") == "req\\|1 a\\|b");
        CHECK(cachewise::markdown_cell("plain") == "plain");
    }

    TEST_CASE("each named byte becomes its replacement, the others go to `other`")
    {
        static constexpr ByteEscape k_table[] = {{'<', "&lt;"}, {'&', "&amp;"}};
        CHECK(escape_bytes("a<b&c", k_table, as_is) == "a&lt;b&amp;c");
        CHECK(escape_bytes("", k_table, as_is).empty());
        CHECK(escape_bytes("plain", k_table, as_is) == "plain");
        // `other` decides what the rest become.
        CHECK(escape_bytes("a\x01<", k_table, [](std::string& out, char c) {
                  out += static_cast<unsigned char>(c) < 0x20 ? '?' : c;
              }) == "a?&lt;");
    }

    TEST_CASE("a replacement may be longer, shorter or empty of text")
    {
        static constexpr ByteEscape k_table[] = {{'\n', "\\n"}, {'x', ""}};
        CHECK(escape_bytes("a\nxb", k_table, as_is) == "a\\nb");
        // A NUL byte in the text is a byte like any other.
        CHECK(escape_bytes(std::string_view("a\0b", 3), k_table, as_is) == std::string("a\0b", 3));
    }
}
