// Hand-computed fixtures for the serving-engine caches (vLLM blocks of 16,
// SGLang pages of 1; rules/providers/vllm.json, sglang.json).

#include "helpers.hpp"
#include "request_builder.hpp"
#include "sim/block_cache.hpp"

#include <doctest/doctest.h>

using namespace cachewise;
using test::Block;

namespace {

model::Request
request(const std::vector<Block>& blocks, double second)
{
    return test::make(blocks, second, "llama-3.1-8b");
}

sim::BlockCache
engine(const std::string& name, std::optional<std::int64_t> capacity = std::nullopt,
       std::optional<std::int64_t> block = std::nullopt)
{
    sim::SimOptions options;
    options.capacity_blocks = capacity;
    options.block_size = block;
    return sim::BlockCache(test::rules().provider(name), options);
}

} // namespace

TEST_SUITE("sim::block_cache")
{
    TEST_CASE("vLLM: 999 shared tokens at B = 16 reuse 992")
    {
        auto c = engine("vllm");
        CHECK(c.simulate(request({{"S", 999}, {"A", 30}}, 0), 0).read == 0);
        const auto s = c.simulate(request({{"S", 999}, {"B", 40}}, 1), 1);
        CHECK(s.read == 992);
        CHECK(s.lost_to_granularity == 7);
        CHECK(s.lost_to_eviction == 0);
        CHECK(s.fresh == 1039 - 992);
    }

    TEST_CASE("vLLM and SGLang recompute the last token of a fully cached prompt")
    {
        auto v = engine("vllm");
        v.simulate(request({{"S", 1024}}, 0), 0);
        CHECK(v.simulate(request({{"S", 1024}}, 1), 1).read == 1008); // 1,023 -> 63 blocks

        auto g = engine("sglang");
        g.simulate(request({{"S", 1024}}, 0), 0);
        CHECK(g.simulate(request({{"S", 1024}}, 1), 1).read == 1023);
    }

    TEST_CASE("SGLang: token granularity; --block-size sets a page size")
    {
        auto g = engine("sglang");
        g.simulate(request({{"S", 999}, {"A", 30}}, 0), 0);
        CHECK(g.simulate(request({{"S", 999}, {"B", 40}}, 1), 1).read == 999);

        auto paged = engine("sglang", std::nullopt, 64);
        paged.simulate(request({{"S", 999}, {"A", 30}}, 0), 0);
        CHECK(paged.simulate(request({{"S", 999}, {"B", 40}}, 1), 1).read == 960);
    }

    TEST_CASE("LRU eviction under a capacity: whole, then from the tail")
    {
        // 100 blocks of 16: room for one 1,600-token prompt.
        auto c = engine("vllm", 100);
        c.simulate(request({{"A", 1600}}, 0), 0);
        c.simulate(request({{"C", 1600}}, 1), 1); // evicts A
        const auto again = c.simulate(request({{"A", 1600}, {"q", 16}}, 2), 2);
        CHECK(again.read == 0);
        CHECK(again.lost_to_eviction == 1600);

        // 150 blocks: C takes 100, so A keeps its first 50 blocks.
        auto d = engine("vllm", 150);
        d.simulate(request({{"A", 1600}}, 0), 0);
        d.simulate(request({{"C", 1600}}, 1), 1);
        const auto part = d.simulate(request({{"A", 1600}, {"q", 16}}, 2), 2);
        CHECK(part.read == 800);
        CHECK(part.lost_to_eviction == 800);
    }

    TEST_CASE("a shared head survives while tails are evicted")
    {
        // S (1,600 = 100 blocks) is shared; each tail is 800 (50 blocks).
        auto c = engine("vllm", 150);
        c.simulate(request({{"S", 1600}, {"T1", 800}}, 0), 0);
        c.simulate(request({{"S", 1600}, {"T2", 800}}, 1), 1); // 200 blocks: T1 goes
        const auto s = c.simulate(request({{"S", 1600}, {"T1", 800}, {"q", 16}}, 2), 2);
        CHECK(s.read == 1600);
        CHECK(s.lost_to_eviction == 800);

        // 180 blocks: only T1's last 20 blocks go; its first 30 still continue S.
        auto d = engine("vllm", 180);
        d.simulate(request({{"S", 1600}, {"T1", 800}}, 0), 0);
        d.simulate(request({{"S", 1600}, {"T2", 800}}, 1), 1);
        const auto t = d.simulate(request({{"S", 1600}, {"T1", 800}, {"q", 16}}, 2), 2);
        CHECK(t.read == 2080);
        CHECK(t.lost_to_eviction == 320);
    }
}
