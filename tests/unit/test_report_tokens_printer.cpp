#include "report/tokens_printer.hpp"

#include <doctest/doctest.h>

#include <sstream>

using namespace cachewise;

TEST_SUITE("report::tokens_printer")
{
    TEST_CASE("the text line groups digits and says 1 token, 1 byte")
    {
        report::TokensReport r{"prompt.txt", "o200k_base", "", 1, 1, false, {}};
        std::ostringstream one;
        report::print_tokens(r, report::Format::text, one);
        CHECK(one.str() == "prompt.txt: 1 token (o200k_base, 1 byte)\n");

        r.bytes = 4'812'345;
        r.tokens = 1'234'567;
        r.model = "gpt-4o";
        std::ostringstream many;
        report::print_tokens(r, report::Format::text, many);
        CHECK(many.str() ==
              "prompt.txt: 1,234,567 tokens (o200k_base for gpt-4o, 4,812,345 bytes)\n");
    }

    TEST_CASE("JSON keeps raw numbers")
    {
        report::TokensReport r{"-", "o200k_base", "", 4'812'345, 1'234'567, false, {}};
        std::ostringstream out;
        report::print_tokens(r, report::Format::json, out);
        CHECK(out.str().find("\"tokens\": 1234567") != std::string::npos);
        CHECK(out.str().find("\"bytes\": 4812345") != std::string::npos);
    }
}
