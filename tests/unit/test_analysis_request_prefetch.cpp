#include "analysis/request_prefetch.hpp"
#include "helpers.hpp"

#include <doctest/doctest.h>

using namespace cachewise;

namespace {

analysis::RequestStore
store_of(const std::string& path)
{
    analysis::RequestStore store;
    for (auto& r : test::load_paths({std::string(CACHEWISE_SOURCE_DIR) + "/" + path}).requests) {
        store.add(r);
    }
    return store;
}

} // namespace

TEST_SUITE("analysis::RequestPrefetch")
{
    TEST_CASE("gives the store's requests in order, with one thread or two")
    {
        const auto store = store_of("samples/claude-code");
        REQUIRE(store.size() > 3);
        for (const unsigned threads : {1U, 2U, 8U}) {
            CAPTURE(threads);
            analysis::RequestPrefetch ahead(store, threads);
            for (std::size_t i = 0; i < store.size(); ++i) {
                const auto expected = store.get(i);
                const auto got = ahead.next();
                CHECK(got.id == expected.id);
                REQUIRE(got.segments.size() == expected.segments.size());
                for (std::size_t k = 0; k < got.segments.size(); ++k) {
                    CHECK(got.segments[k].chain == expected.segments[k].chain);
                    CHECK(got.segments[k].cumulative_tokens ==
                          expected.segments[k].cumulative_tokens);
                }
            }
        }
    }

    TEST_CASE("a reader that stops early is not held up by the thread that rebuilds")
    {
        const auto store = store_of("samples/claude-code");
        analysis::RequestPrefetch ahead(store, 2);
        CHECK(ahead.next().id == store.get(0).id);
        // The destructor stops the thread, which may be waiting for room.
    }

    TEST_CASE("an empty store asks nothing")
    {
        const analysis::RequestStore store;
        const analysis::RequestPrefetch ahead(store, 2);
        CHECK(store.size() == 0);
    }
}
