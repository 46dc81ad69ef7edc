#include "util/interned.hpp"

#include <doctest/doctest.h>

#include <sstream>
#include <string>
#include <thread>
#include <vector>

using cachewise::Interned;

TEST_SUITE("util::Interned")
{
    TEST_CASE("reads, compares and prints as its text; equal texts share one copy")
    {
        const Interned empty;
        CHECK(empty.empty());
        CHECK(empty == "");
        CHECK(empty == Interned(""));

        std::string text = "claude-sonnet-4-5-20250929";
        const Interned a(text);
        text = "something else"; // the pool has its own copy
        const Interned b(std::string("claude-sonnet-4-5-20250929"));
        CHECK(a == b);
        CHECK(&a.str() == &b.str());
        CHECK(a == "claude-sonnet-4-5-20250929");
        CHECK(!(a == "claude-sonnet-4-5"));
        CHECK(a != Interned("claude-opus-4-1"));

        const std::string& as_string = a;
        const std::string_view as_view = a;
        CHECK(as_string == "claude-sonnet-4-5-20250929");
        CHECK(as_view == as_string);
        CHECK(fmt::format("[{}]", a) == "[claude-sonnet-4-5-20250929]");
        std::ostringstream out;
        out << a;
        CHECK(out.str() == "claude-sonnet-4-5-20250929");
    }

    TEST_CASE("assigned from a temporary, it keeps its own copy")
    {
        Interned day;
        day = std::string("2026-12-07T10:00:00Z").substr(0, 10);
        const std::string other(64, 'x'); // reuses the temporary's memory, if anything
        CHECK(day == "2026-12-07");
        day = "";
        CHECK(day.empty());
    }

    TEST_CASE("threads that intern the same texts get the same copies")
    {
        std::vector<std::vector<const std::string*>> seen(4);
        std::vector<std::thread> threads;
        threads.reserve(seen.size());
        for (auto& list : seen) {
            threads.emplace_back([&list] {
                for (int i = 0; i < 1000; ++i) {
                    list.push_back(&Interned("session-" + std::to_string(i % 50)).str());
                }
            });
        }
        for (auto& th : threads) {
            th.join();
        }
        for (std::size_t t = 1; t < seen.size(); ++t) {
            CHECK(seen[t] == seen[0]);
        }
        CHECK(*seen[0][7] == "session-7");
    }
}
