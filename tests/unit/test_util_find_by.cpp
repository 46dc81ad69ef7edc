#include "util/find_by.hpp"

#include <doctest/doctest.h>

#include <string>
#include <string_view>
#include <vector>

namespace {

struct Entry {
    std::string name;
    int value = 0;
};

} // namespace

TEST_SUITE("util::find_by")
{
    TEST_CASE("the first element whose member equals the key, or nullptr")
    {
        const std::vector<Entry> table = {{"a", 1}, {"b", 2}, {"b", 3}};
        const Entry* b = cachewise::util::find_by(table, &Entry::name, std::string_view("b"));
        REQUIRE(b != nullptr);
        CHECK(b->value == 2);
        CHECK(b == &table[1]);
        CHECK(cachewise::util::find_by(table, &Entry::name, std::string_view("c")) == nullptr);
        CHECK(cachewise::util::find_by(table, &Entry::value, 3) == &table[2]);
        const std::vector<Entry> empty;
        CHECK(cachewise::util::find_by(empty, &Entry::name, std::string_view("a")) == nullptr);
    }

    TEST_CASE("a mutable table gives a mutable element")
    {
        std::vector<Entry> table = {{"a", 1}};
        Entry* a = cachewise::util::find_by(table, &Entry::name, std::string_view("a"));
        REQUIRE(a != nullptr);
        a->value = 7;
        CHECK(table[0].value == 7);
    }
}
