#include "util/format.hpp"

#include <doctest/doctest.h>

#include <limits>

using namespace cachewise;

TEST_SUITE("util::format")
{
    TEST_CASE("counts of a thousand and more carry thousands separators")
    {
        CHECK(group_digits(0) == "0");
        CHECK(group_digits(999) == "999");
        CHECK(group_digits(1000) == "1,000");
        CHECK(group_digits(1234567) == "1,234,567");
        CHECK(group_digits(-1234) == "-1,234");
        CHECK(group_digits(std::numeric_limits<std::int64_t>::min()) ==
              "-9,223,372,036,854,775,808");
    }

    TEST_CASE("a count and its noun agree for 0, 1 and many")
    {
        CHECK(count_noun(0, "request") == "0 requests");
        CHECK(count_noun(1, "request") == "1 request");
        CHECK(count_noun(2, "request") == "2 requests");
        CHECK(count_noun(2048, "request") == "2,048 requests");
        CHECK(count_noun(1, "broken record") == "1 broken record");
        CHECK(count_noun(1, "prefix", "prefixes") == "1 prefix");
        CHECK(count_noun(1000, "prefix", "prefixes") == "1,000 prefixes");
        CHECK(count_noun(std::numeric_limits<std::uint64_t>::max(), "byte") ==
              "18,446,744,073,709,551,615 bytes");
    }

    TEST_CASE("a noun takes the article its first letter asks for")
    {
        CHECK(with_article("epoch") == "an epoch");
        CHECK(with_article("date") == "a date");
        CHECK(with_article("uuid") == "a uuid");
        CHECK(with_article("hex-id") == "a hex-id");
        CHECK(with_article("") == "a ");
    }

    TEST_CASE("dollars have six decimals and percentages one")
    {
        CHECK(format_usd(0.1838961) == "0.183896");
        CHECK(format_usd(1234.5) == "1234.500000");
        CHECK(format_usd(0) == "0.000000");
        CHECK(format_usd(-0.0) == "0.000000");
        CHECK(format_usd(-0.0000001) == "0.000000");
        CHECK(format_usd(-0.5) == "-0.500000");
        CHECK(format_percent(0.7079) == "70.8%");
        CHECK(format_percent(1) == "100.0%");
    }

    TEST_CASE("byte sizes in binary units")
    {
        CHECK(human_bytes(1023) == "1023 B");
        CHECK(human_bytes(1536) == "1.5 KiB");
        CHECK(human_bytes(3ULL << 30) == "3.0 GiB");
    }
}
