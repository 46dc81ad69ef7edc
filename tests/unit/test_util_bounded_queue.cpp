#include "util/bounded_queue.hpp"

#include <doctest/doctest.h>

#include <thread>
#include <vector>

using namespace cachewise;

TEST_SUITE("util::BoundedQueue")
{
    TEST_CASE("hands every item over in order, holding at most its capacity")
    {
        BoundedQueue<int> queue(3);
        std::thread producer([&] {
            for (int i = 0; i < 1000; ++i) {
                REQUIRE(queue.push(int(i)));
            }
            queue.close();
        });
        std::vector<int> got;
        while (const auto item = queue.pop()) {
            got.push_back(*item);
        }
        producer.join();
        REQUIRE(got.size() == 1000);
        for (int i = 0; i < 1000; ++i) {
            CHECK(got[static_cast<std::size_t>(i)] == i);
        }
    }

    TEST_CASE("closed: pops drain what is queued, pushes are refused")
    {
        BoundedQueue<int> queue(4);
        CHECK(queue.push(1));
        CHECK(queue.push(2));
        queue.close();
        CHECK_FALSE(queue.push(3));
        CHECK(queue.pop() == 1);
        CHECK(queue.pop() == 2);
        CHECK_FALSE(queue.pop().has_value());
    }

    TEST_CASE("closing with drop discards what is queued and frees a waiting producer")
    {
        BoundedQueue<int> queue(1);
        CHECK(queue.push(1));
        bool refused = false;
        std::thread producer([&] { refused = !queue.push(2); }); // waits for room
        queue.close(true);
        producer.join();
        CHECK(refused);
        CHECK_FALSE(queue.pop().has_value());
    }
}
