#include "cli/progress.hpp"

#include <doctest/doctest.h>

#include <cstdio>
#include <string>

using namespace cachewise;

TEST_SUITE("cli::ProgressLine")
{
    TEST_CASE("the line says files, bytes of the total, requests, rate and time left")
    {
        ingest::LoadProgress p;
        p.files_done = 3;
        p.files_total = 10;
        p.bytes_done = 200'000'000;
        p.bytes_total = 1'000'000'000;
        p.requests = 1234;
        CHECK(cli::ProgressLine::text(p, 2.0) ==
              "reading: 3 of 10 files · 190.7 MiB of 953.7 MiB · 1,234 requests · 95.4 MiB/s · "
              "8 s left");
        p.bytes_total = 0; // standard input: no total, no time left
        CHECK(cli::ProgressLine::text(p, 2.0) ==
              "reading: 3 of 10 files · 190.7 MiB · 1,234 requests · 95.4 MiB/s");
    }

    TEST_CASE("nothing is drawn in the first second, nor when disabled")
    {
        std::FILE* out = std::tmpfile();
        REQUIRE(out != nullptr);
        {
            cli::ProgressLine enabled(true, out);
            enabled.update(ingest::LoadProgress{});
            cli::ProgressLine disabled(false, out);
            disabled.update(ingest::LoadProgress{});
        }
        CHECK(std::ftell(out) == 0);
        std::fclose(out);
    }
}
