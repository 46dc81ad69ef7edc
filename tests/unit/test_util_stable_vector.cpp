#include "util/stable_vector.hpp"

#include <doctest/doctest.h>

#include <atomic>
#include <thread>

using cachewise::StableVector;

TEST_SUITE("util::StableVector")
{
    TEST_CASE("elements keep their address as chunks are added")
    {
        StableVector<int, 2> v; // chunks of 4
        int& first = v.emplace_back();
        first = 7;
        const int* at = &first;
        for (int i = 1; i < 100; ++i) {
            v.emplace_back() = i;
        }
        CHECK(v.size() == 100);
        CHECK(&v[0] == at);
        CHECK(v[0] == 7);
        CHECK(v[99] == 99);
        CHECK(v[4] == 4); // the first element of the second chunk
    }

    TEST_CASE("appended elements are value-initialised")
    {
        StableVector<long, 3> v;
        for (int i = 0; i < 20; ++i) {
            CHECK(v.emplace_back() == 0);
        }
    }

    TEST_CASE("a reader of earlier elements while another thread appends")
    {
        // RequestPrefetch's use; a data race here is what the thread
        // sanitizer run (tests/sanitize.sh tsan) would report.
        StableVector<int, 4> v; // chunks of 16
        for (int i = 0; i < 64; ++i) {
            v.emplace_back() = i;
        }
        std::atomic<bool> done{false};
        long sum = 0;
        std::thread reader([&] {
            while (!done.load()) {
                for (std::size_t i = 0; i < 64; ++i) {
                    sum += v[i];
                }
            }
        });
        for (int i = 64; i < 20000; ++i) {
            v.emplace_back() = i;
        }
        done = true;
        reader.join();
        CHECK(v.size() == 20000);
        CHECK(v[19999] == 19999);
        CHECK(sum % 2016 == 0); // whole passes over 0 + 1 + ... + 63
    }
}
