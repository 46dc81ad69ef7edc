// Property and fuzz-style tests of the parsers: random mutations of valid
// records must never crash or lose a neighbouring record, and random
// re-spacing of valid JSON must never change an identity chain.

#include "helpers.hpp"
#include "util/splitmix.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <cstdint>
#include <set>

using namespace cachewise;

namespace {

using Rng = SplitMix64; // deterministic across platforms, so failures reproduce

const std::vector<std::string> k_corpus = {
    R"({"id":"c1","session":"s","started_at":"2026-11-20T10:00:00Z","request":{"model":"claude-sonnet-4-5","system":[{"type":"text","text":"You are a helpful agent.","cache_control":{"type":"ephemeral"}}],"tools":[{"name":"grep","description":"Search","input_schema":{"type":"object","properties":{"q":{"type":"string"}}}}],"messages":[{"role":"user","content":"find \"foo\"\n"},{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"grep","input":{"q":"foo","n":1.5e3}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":[{"type":"text","text":"a.c:1: foo\\u00e9"}],"cache_control":{"type":"ephemeral","ttl":"1h"}}]}]},"response":{"id":"msg_1","type":"message","usage":{"input_tokens":5,"cache_creation_input_tokens":100,"cache_read_input_tokens":2000,"cache_creation":{"ephemeral_5m_input_tokens":100,"ephemeral_1h_input_tokens":0},"output_tokens":20}}})",
    R"({"model":"claude-opus-4-5","thinking":{"type":"enabled","budget_tokens":1024},"tool_choice":{"type":"auto"},"cache_control":{"type":"ephemeral"},"messages":[{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgoAAAANSUhEUg=="}},{"type":"text","text":"what is this? \u4f60\u597d"}]},{"role":"assistant","content":[{"type":"thinking","thinking":"hmm","signature":"sig"},{"type":"text","text":"A cat."}]},{"role":"user","content":"ok"}]})",
    R"({"request":{"model":"m","messages":[{"role":"user","content":"x"}]},"response":"event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":3,\"output_tokens\":1}}}\n\nevent: message_delta\ndata: {\"type\":\"message_delta\",\"usage\":{\"output_tokens\":9}}\n\n"})",
};

std::string
mutate(const std::string& in, Rng& rng)
{
    std::string s = in;
    const int edits = 1 + static_cast<int>(rng.below(4));
    for (int i = 0; i < edits && !s.empty(); ++i) {
        const std::size_t at = rng.below(s.size());
        switch (rng.below(6)) {
        case 0: // flip a byte to anything but a newline
            s[at] = static_cast<char>(rng.below(256));
            if (s[at] == '\n') {
                s[at] = ' ';
            }
            break;
        case 1:
            s.erase(at, 1 + rng.below(20));
            break;
        case 2:
            s.insert(at, 1, "{}[]\",:\\0e-"[rng.below(11)]);
            break;
        case 3:
            s.insert(at, s.substr(rng.below(s.size()), rng.below(40)));
            break;
        case 4:
            s.resize(at);
            break;
        default:
            s.insert(at, std::string(1 + rng.below(3), "\xC3\xE2\x80\xFF"[rng.below(4)]));
            break;
        }
    }
    for (auto& c : s) {
        if (c == '\n' || c == '\r') {
            c = ' ';
        }
    }
    return s;
}

} // namespace

TEST_SUITE("ingest::fuzz")
{
    TEST_CASE("mutated records never crash and never take a good neighbour with them")
    {
        Rng rng(20261129);
        std::string file;
        std::size_t mutated = 0;
        constexpr std::size_t k_rounds = 1500;
        for (std::size_t i = 0; i < k_rounds; ++i) {
            // A sentinel that must always survive, then a mutant.
            file +=
                fmt::format(
                    R"({{"id":"good-{}","model":"m","messages":[{{"role":"user","content":"ok"}}]}})",
                    i) +
                "\n";
            std::string m = mutate(k_corpus[rng.below(k_corpus.size())], rng);
            if (m.find_first_not_of(" \t") == std::string::npos) {
                m = std::string(1, '{');
            }
            file += m + "\n";
            ++mutated;
        }
        const auto loaded = test::load_text(file);
        std::set<std::string> good;
        for (const auto& r : loaded.requests) {
            if (r.id.rfind("good-", 0) == 0) {
                good.insert(r.id);
            }
            // Whatever was accepted is internally consistent.
            std::int64_t cumulative = 0;
            for (const auto& s : r.segments) {
                CHECK(s.tokens >= 0);
                cumulative += s.tokens;
                CHECK(s.cumulative_tokens == cumulative);
            }
        }
        CHECK(good.size() == k_rounds);
        // Every line is accounted for: a request (a JSON array line may hold
        // several), a record seen before (a mutant that kept its original's
        // id and prompt) or exactly one error.
        CHECK(loaded.summary.records == k_rounds + mutated);
        CHECK(loaded.requests.size() + loaded.summary.duplicates + loaded.summary.error_count >=
              loaded.summary.records);
        CHECK(loaded.summary.error_count > 0);
    }

    TEST_CASE("re-spacing valid JSON never changes the chain")
    {
        Rng rng(7);
        const std::string spaces[] = {" ", "\n", "\t", "  ", "\r\n"};
        for (const auto& original : k_corpus) {
            const auto base = test::load_text(original + "\n");
            REQUIRE(base.requests.size() == 1);
            for (int round = 0; round < 20; ++round) {
                // Insert whitespace between tokens (outside strings) at random.
                std::string spaced;
                bool in_string = false;
                for (std::size_t i = 0; i < original.size(); ++i) {
                    const char c = original[i];
                    const bool structural = !in_string && (c == '{' || c == '}' || c == '[' ||
                                                           c == ']' || c == ':' || c == ',');
                    if (structural && rng.below(2) == 0) {
                        spaced += spaces[rng.below(5)];
                    }
                    spaced.push_back(c);
                    if (structural && rng.below(2) == 0) {
                        spaced += spaces[rng.below(5)];
                    }
                    if (c == '"') {
                        std::size_t backslashes = 0;
                        for (std::size_t k = i; k > 0 && original[k - 1] == '\\'; --k) {
                            ++backslashes;
                        }
                        if (backslashes % 2 == 0) {
                            in_string = !in_string;
                        }
                    }
                }
                // A pretty-printed record is one document, not a line: read it as one.
                const auto again = test::load_text(spaced, ingest::InputFormat::request, "r.json");
                REQUIRE(again.requests.size() == 1);
                const auto& a = base.requests[0].segments;
                const auto& b = again.requests[0].segments;
                REQUIRE(a.size() == b.size());
                for (std::size_t k = 0; k < a.size(); ++k) {
                    CHECK(a[k].chain == b[k].chain);
                    CHECK(a[k].tokens == b[k].tokens);
                }
            }
        }
    }
}
