#include "helpers.hpp"
#include "tokenize/concurrent_counts.hpp"
#include "tokenize/exact_counts.hpp"
#include "tokenize_helpers.hpp"

#include <doctest/doctest.h>

#include <thread>

using namespace cachewise;
using namespace cachewise::tokenize;

namespace {

// One OpenAI chat exchange with two messages and, optionally, a usage.
std::string
openai_exchange(const std::string& model, const std::string& usage)
{
    return R"({"id": "r1", "request": {"model": ")" + model +
           R"(", "messages": [{"role": "system", "content": "You are terse."},
           {"role": "user", "content": "Count these tokens, please."}]})" +
           (usage.empty() ? "" : R"(, "response": {"usage": )" + usage + "}") + "}\n";
}

model::Request
load_one(const std::string& content, model::TextStore& store)
{
    test::TempFile file(content);
    ingest::LoadOptions options;
    options.text_store = &store;
    ingest::Loader loader(test::rules(), options);
    std::vector<model::Request> out;
    (void)loader.load({file.path()}, [&](model::Request&& r) { out.push_back(std::move(r)); });
    REQUIRE(out.size() == 1);
    return std::move(out.front());
}

} // namespace

TEST_SUITE("tokenize::ExactCounts")
{
    TEST_CASE("OpenAI segments count their text plus 3 per message and 3 after the last")
    {
        model::TextStore store;
        auto r = load_one(openai_exchange("gpt-4o", ""), store);
        ExactCounts counts(test::catalogue());
        REQUIRE(counts.apply(r, store));
        const auto& t = test::shipped_tokenizer("o200k_base");
        REQUIRE(r.segments.size() == 2);
        CHECK(r.segments[0].token_source == model::TokenSource::exact);
        CHECK(r.segments[0].tokens == static_cast<std::int64_t>(t.count("You are terse.")) + 3);
        CHECK(r.segments[1].tokens ==
              static_cast<std::int64_t>(t.count("Count these tokens, please.")) + 3 + 3);
        CHECK(r.segments[1].cumulative_tokens == r.segments[0].tokens + r.segments[1].tokens);
        CHECK(r.notes.empty());
    }

    TEST_CASE("a reported total above the count goes to the first segment, with a note")
    {
        model::TextStore store;
        auto r = load_one(openai_exchange("gpt-4o", R"({"prompt_tokens": 40, "completion_tokens":
            1})"),
                          store);
        ExactCounts counts(test::catalogue());
        REQUIRE(counts.apply(r, store));
        CHECK(r.segments.back().cumulative_tokens == 40);
        CHECK(r.segments[0].token_source == model::TokenSource::calibrated);
        CHECK(r.segments[1].token_source == model::TokenSource::exact);
        REQUIRE(r.notes.size() == 1);
        CHECK(r.notes[0].find("tokens the log does not show") != std::string::npos);
    }

    TEST_CASE("repeated segments are counted once (memoised by content)")
    {
        model::TextStore store;
        auto a = load_one(openai_exchange("gpt-4o", ""), store);
        auto b = load_one(openai_exchange("gpt-4o", ""), store);
        ExactCounts counts(test::catalogue());
        REQUIRE(counts.apply(a, store));
        REQUIRE(counts.apply(b, store));
        CHECK(counts.segments_counted() == 2);
        CHECK(counts.segments_memoised() == 2);
    }

    TEST_CASE("DeepSeek uses its own vocabulary and template; Anthropic stays estimated")
    {
        model::TextStore store;
        auto r = load_one(openai_exchange("deepseek-chat", ""), store);
        ExactCounts counts(test::catalogue());
        REQUIRE(counts.apply(r, store));
        const auto& t = test::shipped_tokenizer("deepseek_v3");
        // BOS at the start, system adds nothing; <｜User｜> and the final
        // <｜Assistant｜> around the user message.
        CHECK(r.segments[0].tokens == static_cast<std::int64_t>(t.count("You are terse.")) + 1);
        CHECK(r.segments[1].tokens ==
              static_cast<std::int64_t>(t.count("Count these tokens, please.")) + 1 + 1);

        auto c = load_one(openai_exchange("claude-sonnet-4-5", ""), store);
        c.provider = "anthropic";
        CHECK(!counts.apply(c, store));
        CHECK(c.segments[0].token_source == model::TokenSource::estimated);
    }

    TEST_CASE("a vocabulary that is not at hand keeps the estimates and is named in a note")
    {
        model::TextStore store;
        auto a = load_one(openai_exchange("meta-llama/Meta-Llama-3-8B-Instruct", ""), store);
        auto b = load_one(openai_exchange("meta-llama/Meta-Llama-3-8B-Instruct", ""), store);
        ExactCounts counts(test::catalogue());
        CHECK(!counts.apply(a, store));
        CHECK(!counts.apply(b, store));
        CHECK(a.segments[0].token_source == model::TokenSource::estimated);
        CHECK(counts.requests_counted() == 0);
        const auto notes = counts.missing_notes();
        REQUIRE(notes.size() == 1);
        CHECK(notes[0] == "no llama3 tokenizer (llama3.tokenizer.json is not shipped (licence or "
                          "size); give --tokenizer-dir DIR): 2 requests of "
                          "meta-llama/Meta-Llama-3-8B-Instruct keep estimated token counts");
    }

    TEST_CASE("a model no tokenizer maps is estimated without a note")
    {
        model::TextStore store;
        auto r = load_one(openai_exchange("mistral-large", ""), store);
        ExactCounts counts(test::catalogue());
        CHECK(!counts.apply(r, store));
        CHECK(counts.missing_notes().empty());
    }

    TEST_CASE("counts made on several threads equal one thread's, and their tallies add up")
    {
        model::TextStore store;
        const auto a = load_one(openai_exchange("gpt-4o", ""), store);
        const auto b = load_one(openai_exchange("deepseek-chat", ""), store);
        auto one_a = a;
        auto one_b = b;
        ExactCounts one(test::catalogue());
        REQUIRE(one.apply(one_a, store));
        REQUIRE(one.apply(one_b, store));

        ConcurrentCounts concurrent(test::tokenizer_dir(), std::nullopt);
        CHECK(concurrent.empty());
        std::vector<model::Request> done(8);
        std::vector<std::thread> threads;
        for (std::size_t t = 0; t < 2; ++t) {
            threads.emplace_back([&, t] {
                for (std::size_t i = t; i < done.size(); i += 2) {
                    done[i] = i % 2 == 0 ? a : b;
                    REQUIRE(concurrent.apply(done[i], store));
                }
            });
        }
        for (auto& t : threads) {
            t.join();
        }
        for (std::size_t i = 0; i < done.size(); ++i) {
            const auto& expected = i % 2 == 0 ? one_a : one_b;
            for (std::size_t k = 0; k < expected.segments.size(); ++k) {
                CHECK(done[i].segments[k].tokens == expected.segments[k].tokens);
                CHECK(done[i].segments[k].token_source == model::TokenSource::exact);
            }
        }
        ExactCounts merged(test::catalogue());
        concurrent.merge_into(merged);
        CHECK(merged.requests_counted() == 8);
        CHECK(merged.segments_counted() + merged.segments_memoised() == 16);
        CHECK(merged.tokenizers_used() == std::set<std::string>{"deepseek_v3", "o200k_base"});
    }
}
