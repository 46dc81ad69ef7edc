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

// Request `got` as the store gives `expected`: its id, chains and counts.
void
check_same(const model::Request& got, const model::Request& expected)
{
    CHECK(got.id == expected.id);
    REQUIRE(got.segments.size() == expected.segments.size());
    for (std::size_t k = 0; k < got.segments.size(); ++k) {
        CHECK(got.segments[k].chain == expected.segments[k].chain);
        CHECK(got.segments[k].cumulative_tokens == expected.segments[k].cumulative_tokens);
    }
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
                check_same(ahead.next(), store.get(i));
            }
        }
    }

    TEST_CASE("segments ahead while the reader puts each request back with new counts")
    {
        // The analysis' use: request i is put back (new nodes interned, the
        // old form's released) while later ones are rebuilt on the other
        // thread. What each gives must be what the store held before.
        auto store = store_of("samples/claude-code");
        std::vector<model::Request> before;
        for (std::size_t i = 0; i < store.size(); ++i) {
            before.push_back(store.get(i));
        }
        std::vector<model::Request> pinned;
        {
            analysis::RequestPrefetch ahead(store, 2, analysis::RequestPrefetch::Scope::segments);
            for (std::size_t i = 0; i < store.size(); ++i) {
                auto r = ahead.next();
                CHECK(r.id == before[i].id);
                REQUIRE(r.segments.size() == before[i].segments.size());
                std::int64_t total = 0;
                for (std::size_t k = 0; k < r.segments.size(); ++k) {
                    CHECK(r.segments[k].cumulative_tokens ==
                          before[i].segments[k].cumulative_tokens);
                    r.segments[k].tokens += 1;
                    total += r.segments[k].tokens;
                    r.segments[k].cumulative_tokens = total;
                }
                store.put(i, r);
                pinned.push_back(std::move(r));
            }
        }
        for (std::size_t i = 0; i < store.size(); ++i) {
            const auto again = store.get(i);
            REQUIRE(again.segments.size() == pinned[i].segments.size());
            for (std::size_t k = 0; k < again.segments.size(); ++k) {
                CHECK(again.segments[k].cumulative_tokens ==
                      pinned[i].segments[k].cumulative_tokens);
            }
        }
    }

    TEST_CASE("segments ahead: a request that keeps its own segments is rebuilt by the reader")
    {
        // Counts that are not a running sum are kept as they are (Form::own),
        // which the rebuilding thread leaves to next().
        auto store = store_of("samples/claude-code");
        REQUIRE(store.size() > 2);
        model::Request odd = store.get(1);
        REQUIRE(odd.segments.size() > 1);
        odd.segments[1].cumulative_tokens += 7;
        store.put(1, odd);
        REQUIRE(store.unshared() == 1);
        analysis::RequestPrefetch ahead(store, 2, analysis::RequestPrefetch::Scope::segments);
        for (std::size_t i = 0; i < store.size(); ++i) {
            check_same(ahead.next(), store.get(i));
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
