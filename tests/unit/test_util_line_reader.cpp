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

TEST_SUITE("util::LineReader on hostile input")
{
    TEST_CASE("a byte-order mark is not part of the first line")
    {
        test::TempFile f("\xEF\xBB\xBF{\"a\":1}\n{\"b\":2}\n");
        const auto lines = read_all(f.path(), 1 << 20);
        CHECK(lines == std::vector<std::string>{"{\"a\":1}", "{\"b\":2}"});
    }

    TEST_CASE("CR, LF and CRLF all end a line; a last CR ends the last line")
    {
        test::TempFile f("one\rtwo\r\nthree\nfour\r");
        const auto lines = read_all(f.path(), 1 << 20);
        CHECK(lines == std::vector<std::string>{"one", "two", "three", "four"});
    }

    TEST_CASE("a CRLF split across two reads is one line end")
    {
        // 1 MiB reads: put the CR last in the first read.
        std::string text(std::size_t{1} << 20, 'x');
        text[text.size() - 1] = '\r';
        text += "\nnext\n";
        test::TempFile f(text);
        const auto lines = read_all(f.path(), std::size_t{1} << 22);
        REQUIRE(lines.size() == 2);
        CHECK(lines[0].size() == (std::size_t{1} << 20) - 1);
        CHECK(lines[1] == "next");
    }

    TEST_CASE("mark_last_line and rewind read the lines again, numbers included")
    {
        test::TempFile f("a\nb\nc\n");
        auto opened = LineReader::open(f.path());
        REQUIRE(opened);
        LineReader& reader = **opened;
        LineReader::Line line;
        REQUIRE(*reader.next(line));
        REQUIRE(*reader.next(line));
        CHECK(line.text == "b");
        reader.mark_last_line();
        REQUIRE(*reader.next(line));
        CHECK(line.text == "c");
        reader.rewind();
        REQUIRE(*reader.next(line));
        CHECK(line.text == "b");
        CHECK(line.number == 2);
        REQUIRE(*reader.next(line));
        CHECK(line.text == "c");
        CHECK(line.number == 3);
    }
}
