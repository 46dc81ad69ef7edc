#include "model/text_store.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

using namespace cachewise;

TEST_SUITE("model::TextStore")
{
    TEST_CASE("texts beyond the memory budget are read back from the temporary file")
    {
        model::TextStore store(10);
        const std::string a = "0123456789";
        const std::string b(5000, 'x');
        const std::string c("tail with \0 a NUL", 17);
        store.put(hash_bytes(a), a);
        store.put(hash_bytes(b), b);
        store.put(hash_bytes(c), c);
        store.put(hash_bytes(b), b); // once per content
        CHECK(store.size() == 3);
        CHECK(store.bytes() == a.size() + b.size() + c.size());
        CHECK(store.spilled_bytes() == b.size() + c.size());
        CHECK(store.get(hash_bytes(a)) == a);
        CHECK(store.get(hash_bytes(b)) == b);
        CHECK(store.get(hash_bytes(c)) == c);
        CHECK_FALSE(store.get(hash_bytes("absent")).has_value());
    }

    TEST_CASE("spilled texts are read back whether their batch was written out or not")
    {
        model::TextStore store(0);
        std::vector<std::string> texts;
        // Three batches and a part: texts in the file and in the batch.
        for (std::size_t i = 0; texts.size() * 1000 < 3 * model::TextStore::k_write_batch + 500;
             ++i) {
            texts.push_back(std::string(999, static_cast<char>('a' + i % 26)) + std::to_string(i));
            store.put(hash_bytes(texts.back()), texts.back());
        }
        std::size_t total = 0;
        for (const auto& text : texts) {
            total += text.size();
            CHECK(store.get(hash_bytes(text)) == text);
        }
        CHECK(store.size() == texts.size());
        CHECK(store.spilled_bytes() == total);
    }

    TEST_CASE("texts put by several threads while the writer writes are all read back")
    {
        // More full batches than may wait for the writer: the putting
        // threads wait for it, and each text is read from memory or the
        // file, wherever its batch is, while the others go on putting.
        model::TextStore store(0);
        constexpr int k_threads = 3;
        constexpr std::size_t k_each = 12 * model::TextStore::k_write_batch / 2000;
        const auto text_of = [](int t, std::size_t i) {
            return std::string(1990, static_cast<char>('a' + (i + t) % 26)) + std::to_string(t) +
                   ":" + std::to_string(i);
        };
        std::vector<int> wrong(k_threads, 0);
        std::vector<std::thread> threads;
        threads.reserve(k_threads);
        for (int t = 0; t < k_threads; ++t) {
            threads.emplace_back([&, t] {
                for (std::size_t i = 0; i < k_each; ++i) {
                    const std::string text = text_of(t, i);
                    store.put(hash_bytes(text), text);
                    if (i % 7 == 0) {
                        const std::string earlier = text_of(t, i / 2);
                        wrong[t] += store.get(hash_bytes(earlier)) == earlier ? 0 : 1;
                    }
                }
            });
        }
        for (auto& thread : threads) {
            thread.join();
        }
        CHECK(wrong == std::vector<int>(k_threads, 0));
        std::size_t total = 0;
        for (int t = 0; t < k_threads; ++t) {
            for (std::size_t i = 0; i < k_each; ++i) {
                const std::string text = text_of(t, i);
                total += text.size();
                REQUIRE(store.get(hash_bytes(text)) == text);
            }
        }
        CHECK(store.spilled_bytes() == total);
    }

    TEST_CASE("an alias keeps the text under a second key, once, from memory or the file")
    {
        model::TextStore store(8);
        const std::string a = "short";
        const std::string b = "longer than the budget";
        store.put(hash_bytes(a), a);
        store.put(hash_bytes(b), b); // spilled
        store.alias(hash_bytes(a), hash_bytes("a2"));
        store.alias(hash_bytes(b), hash_bytes("b2"));
        CHECK(store.get(hash_bytes("a2")) == a);
        CHECK(store.get(hash_bytes("b2")) == b);
        const auto size = store.size();
        const auto bytes = store.bytes();
        store.alias(hash_bytes(a), hash_bytes("a2")); // kept already: nothing copied
        store.alias(hash_bytes(b), hash_bytes("a2")); // the first text stays
        store.alias(hash_bytes("absent"), hash_bytes("c2"));
        CHECK(store.size() == size);
        CHECK(store.bytes() == bytes);
        CHECK(store.get(hash_bytes("a2")) == a);
        CHECK_FALSE(store.get(hash_bytes("c2")).has_value());
    }

    TEST_CASE("a moved store keeps its file")
    {
        model::TextStore store(0);
        store.put(hash_bytes("spilled"), "spilled");
        model::TextStore moved(std::move(store));
        CHECK(moved.get(hash_bytes("spilled")) == std::string("spilled"));
        model::TextStore assigned;
        assigned = std::move(moved);
        CHECK(assigned.get(hash_bytes("spilled")) == std::string("spilled"));
    }

    TEST_CASE("within the budget nothing is written out")
    {
        model::TextStore store;
        store.put(hash_bytes("small"), "small");
        CHECK(store.spilled_bytes() == 0);
        CHECK(store.get(hash_bytes("small")) == std::string("small"));
    }

    TEST_CASE("the tagger runs once per text put after it is set, in memory and spilled alike")
    {
        model::TextStore store(10); // "before" and "held" fit
        store.put(hash_bytes("before"), "before");
        store.set_tagger(
            [](std::string_view bytes) { return static_cast<std::uint8_t>(bytes.size()); });
        store.put(hash_bytes("held"), "held");
        store.put(hash_bytes("spilled text"), "spilled text");
        CHECK(store.spilled_bytes() == 12);
        CHECK(store.tags(hash_bytes("held")) == std::optional<std::uint8_t>(4));
        CHECK(store.tags(hash_bytes("spilled text")) == std::optional<std::uint8_t>(12));
        CHECK_FALSE(store.tags(hash_bytes("before")).has_value()); // put untagged
        CHECK_FALSE(store.tags(hash_bytes("absent")).has_value());
        CHECK(store.get(hash_bytes("spilled text")) == std::string("spilled text"));
    }
}
