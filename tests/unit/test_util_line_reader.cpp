#include "helpers.hpp"
#include "util/line_reader.hpp"

#include <doctest/doctest.h>

using namespace cachewise;

namespace {

std::vector<std::string>
read_all(const std::string& path, std::size_t max_line, std::vector<bool>* too_long = nullptr)
{
    auto reader = LineReader::open(path, max_line);
    REQUIRE(reader);
    std::vector<std::string> lines;
    LineReader::Line line;
    while (true) {
        auto more = (*reader)->next(line);
        REQUIRE(more);
        if (!*more) {
            break;
        }
        lines.emplace_back(line.text);
        if (too_long != nullptr) {
            too_long->push_back(line.too_long);
        }
    }
    return lines;
}

} // namespace

TEST_SUITE("util::LineReader")
{
    TEST_CASE("splits lines, drops CR, keeps a last line without newline")
    {
        test::TempFile f("a\r\nbb\n\nccc");
        const auto lines = read_all(f.path(), 1 << 20);
        CHECK(lines == std::vector<std::string>{"a", "bb", "", "ccc"});
    }

    TEST_CASE("lines longer than the buffer chunk are joined correctly")
    {
        std::string big(3 * 1024 * 1024 + 17, 'x');
        test::TempFile f("first\n" + big + "\nlast\n");
        const auto lines = read_all(f.path(), 1 << 30);
        REQUIRE(lines.size() == 3);
        CHECK(lines[1] == big);
        CHECK(lines[2] == "last");
    }

    TEST_CASE("a line over the limit is skipped and flagged; the next lines still come")
    {
        std::string big(5 * 1024 * 1024, 'y');
        test::TempFile f("one\n" + big + "\ntwo\n");
        std::vector<bool> too_long;
        const auto lines = read_all(f.path(), 1024 * 1024, &too_long);
        REQUIRE(lines.size() == 3);
        CHECK(lines[0] == "one");
        CHECK(too_long[1]);
        CHECK(lines[1].empty());
        CHECK(lines[2] == "two");
    }

    TEST_CASE("line numbers and offsets")
    {
        test::TempFile f("ab\ncde\n");
        auto reader = LineReader::open(f.path());
        REQUIRE(reader);
        LineReader::Line line;
        REQUIRE(*(*reader)->next(line));
        CHECK(line.number == 1);
        CHECK(line.offset == 0);
        REQUIRE(*(*reader)->next(line));
        CHECK(line.number == 2);
        CHECK(line.offset == 3);
    }

    TEST_CASE("unread returns the same line again, and rest() includes it")
    {
        test::TempFile f("{\n  \"a\": 1\n}\n");
        auto reader = LineReader::open(f.path());
        REQUIRE(reader);
        LineReader::Line line;
        REQUIRE(*(*reader)->next(line));
        CHECK(line.text == "{");
        (*reader)->unread();
        REQUIRE(*(*reader)->next(line));
        CHECK(line.text == "{");
        (*reader)->unread();
        auto rest = (*reader)->rest();
        REQUIRE(rest);
        CHECK(*rest == "{\n  \"a\": 1\n}\n");
    }

    TEST_CASE("a missing file is an error naming it")
    {
        auto reader = LineReader::open("/nonexistent/cachewise.jsonl");
        REQUIRE(!reader);
        CHECK(reader.error().find("/nonexistent/cachewise.jsonl: cannot open") == 0);
    }
}
