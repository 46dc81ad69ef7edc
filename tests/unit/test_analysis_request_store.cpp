#include "analysis/request_store.hpp"
#include "helpers.hpp"
#include "model/tokens.hpp"

#include <doctest/doctest.h>

#include <bit>
#include <numeric>

using namespace cachewise;

namespace {

// Every field a later step reads, cumulative counts included.
bool
same_segments(const std::vector<model::Segment>& a, const std::vector<model::Segment>& b)
{
    if (a.size() != b.size()) {
        return false;
    }
    for (std::size_t k = 0; k < a.size(); ++k) {
        const auto& x = a[k];
        const auto& y = b[k];
        if (!(x.path == y.path) || x.kind != y.kind || x.role != y.role ||
            x.message_start != y.message_start || x.cache_control != y.cache_control ||
            x.cache_control_allowed != y.cache_control_allowed ||
            x.lookback_position != y.lookback_position || x.content != y.content ||
            x.bytes != y.bytes ||
            std::bit_cast<std::uint32_t>(x.estimate) != std::bit_cast<std::uint32_t>(y.estimate) ||
            x.tokens != y.tokens || x.cumulative_tokens != y.cumulative_tokens ||
            x.token_source != y.token_source || x.chain != y.chain) {
            return false;
        }
    }
    return true;
}

std::vector<model::Request>
sample(const std::string& path)
{
    return test::load_paths({std::string(CACHEWISE_SOURCE_DIR) + "/" + path}).requests;
}

std::size_t
total_segments(const std::vector<model::Request>& requests)
{
    return std::accumulate(requests.begin(), requests.end(), std::size_t{0},
                           [](std::size_t n, const auto& r) { return n + r.segments.size(); });
}

} // namespace

TEST_SUITE("analysis::RequestStore")
{
    TEST_CASE("gives back every request as the loader made it, sharing the resent history")
    {
        for (const std::string path : {"samples/agent-session.jsonl", "samples/claude-code"}) {
            CAPTURE(path);
            const auto requests = sample(path);
            REQUIRE(requests.size() > 3);
            analysis::RequestStore store;
            for (const auto& r : requests) {
                store.add(r);
            }
            REQUIRE(store.size() == requests.size());
            for (std::size_t i = 0; i < requests.size(); ++i) {
                const auto back = store.get(i);
                CHECK(back.id == requests[i].id);
                CHECK(back.stream == requests[i].stream);
                CHECK(back.notes == requests[i].notes);
                CHECK(store.head(i).segments.empty());
                CHECK(same_segments(back.segments, requests[i].segments));
                std::vector<Hash128> chains;
                store.chains(i, chains);
                REQUIRE(chains.size() == requests[i].segments.size());
                CHECK((chains.empty() || chains.back() == requests[i].segments.back().chain));
            }
            // The history each request resends is stored once.
            CHECK(store.nodes() * 2 < total_segments(requests));
            CHECK(store.unshared() == 0);
        }
    }

    TEST_CASE("a request pinned to its partner's counts shares its partner's nodes")
    {
        auto requests = sample("samples/agent-session.jsonl");
        analysis::RequestStore store;
        store.add(model::Request(requests[0]));
        store.add(model::Request(requests[1]));
        model::Request first = store.get(0);
        model::Request second = store.get(1);
        store.put(0, model::Request(first));
        // The uncounted form of the first request is freed where the second
        // does not share it.
        CHECK(store.get(1).id == second.id);
        CHECK(same_segments(store.get(1).segments, second.segments));
        std::size_t shared = 0;
        while (shared < std::min(first.segments.size(), second.segments.size()) &&
               first.segments[shared].chain == second.segments[shared].chain) {
            ++shared;
        }
        REQUIRE(shared > 0);
        REQUIRE(model::calibrate_from_prefix(second, first, shared));
        store.put(1, model::Request(second));
        CHECK(same_segments(store.get(1).segments, second.segments));
        CHECK(same_segments(store.get(0).segments, first.segments));
        // Only the part after the shared prefix is new, and a shared segment
        // that has lost or gained a breakpoint (the breakpoint moves on each turn).
        std::size_t moved = 0;
        for (std::size_t k = 0; k < shared; ++k) {
            moved += first.segments[k].cache_control != second.segments[k].cache_control ? 1 : 0;
        }
        CHECK(store.nodes() == first.segments.size() + second.segments.size() - shared + moved);
    }

    TEST_CASE("counts that are not a running sum are kept as they are")
    {
        auto requests = sample("samples/agent-session.jsonl");
        model::Request odd = requests.front();
        REQUIRE(odd.segments.size() > 1);
        odd.segments[1].cumulative_tokens += 7;
        analysis::RequestStore store;
        store.add(model::Request(odd));
        CHECK(store.unshared() == 1);
        CHECK(same_segments(store.get(0).segments, odd.segments));
    }

    TEST_CASE("a count beyond 32 bits keeps its request's segments as they are")
    {
        // A pinned request (put) whose counts a packed node cannot hold.
        auto requests = sample("samples/agent-session.jsonl");
        analysis::RequestStore store;
        store.add(requests.front());
        model::Request huge = store.get(0);
        REQUIRE(!huge.segments.empty());
        huge.segments.back().tokens = std::int64_t{1} << 33;
        std::int64_t total = 0;
        for (auto& s : huge.segments) {
            total += s.tokens;
            s.cumulative_tokens = total;
        }
        store.put(0, huge);
        CHECK(store.unshared() == 1);
        CHECK(same_segments(store.get(0).segments, huge.segments));
    }

    TEST_CASE("permute reorders heads, paths and the requests kept whole")
    {
        auto requests = sample("samples/agent-session.jsonl");
        requests.front().segments[0].cumulative_tokens += 1; // kept whole
        analysis::RequestStore store;
        for (const auto& r : requests) {
            store.add(r);
        }
        std::vector<std::size_t> order(requests.size());
        std::iota(order.rbegin(), order.rend(), 0);
        store.permute(order);
        for (std::size_t k = 0; k < order.size(); ++k) {
            CHECK(store.get(k).id == requests[order[k]].id);
            CHECK(same_segments(store.get(k).segments, requests[order[k]].segments));
        }
    }
}
