#include "report/text_table.hpp"

#include <doctest/doctest.h>

#include <sstream>

using namespace cachewise::report;

TEST_SUITE("report::TextTable")
{
    TEST_CASE("short cells keep the minimum widths")
    {
        TextTable t({{4, TextTable::Align::left, ""},
                     {6, TextTable::Align::right, " "},
                     {0, TextTable::Align::left, "  "}});
        t.add_row({"id", "tokens", "note"});
        t.add_row({"a", "12", "x"});
        std::ostringstream out;
        t.print(out);
        CHECK(out.str() == "  id   tokens  note\n"
                           "  a        12  x\n");
    }

    TEST_CASE("a long id or a large count widens its column for every row")
    {
        TextTable t("<4 >6  <0");
        t.add_row({"id", "tokens", "note"});
        t.add_row({"logs/run-7/call-0003.json:1", "12", "x"});
        t.add_row({"b", "12,345,678", "y"});
        std::ostringstream out;
        t.print(out);
        CHECK(out.str() == "  id                              tokens  note\n"
                           "  logs/run-7/call-0003.json:1         12  x\n"
                           "  b                           12,345,678  y\n");
    }

    TEST_CASE("an empty last cell leaves no trailing spaces")
    {
        TextTable t("<3  <0");
        t.add_row({"id", "findings"});
        t.add_row({"a", ""});
        std::ostringstream out;
        t.print(out);
        CHECK(out.str() == "  id   findings\n  a\n");
    }

    TEST_CASE("widths count code points, not bytes")
    {
        CHECK(display_width("≈0.03 USD") == 9);
        TextTable t({{0, TextTable::Align::left, ""}, {0, TextTable::Align::left, " "}});
        t.add_row({"«é»", "x"});
        t.add_row({"abcd", "y"});
        std::ostringstream out;
        t.print(out);
        CHECK(out.str() == "  «é»  x\n  abcd y\n");
    }

    TEST_CASE("a layout reads as the row it draws")
    {
        TextTable drawn(">12   <0", "");
        TextTable listed({{12, TextTable::Align::right, ""}, {0, TextTable::Align::left, "   "}},
                         "");
        for (auto* t : {&drawn, &listed}) {
            t->add_row({"1,234", "name"});
        }
        std::ostringstream a;
        std::ostringstream b;
        drawn.print(a);
        listed.print(b);
        CHECK(a.str() == "       1,234   name\n");
        CHECK(a.str() == b.str());
    }

    TEST_CASE("a layout that is not columns of < or > and a width is refused")
    {
        for (const char* layout : {"", "4", "<", "<4 x", "<4 >", "<-1", "<4 >6 "}) {
            CAPTURE(layout);
            CHECK_THROWS_AS(TextTable{std::string_view(layout)}, std::invalid_argument);
        }
    }
}
