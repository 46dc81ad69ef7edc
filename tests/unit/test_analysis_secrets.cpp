#include "analysis/secrets.hpp"
#include "analysis/segment_text.hpp"
#include "helpers.hpp"
#include "ingest/json_render.hpp"
#include "model/chain.hpp"
#include "model/display_text.hpp"
#include "util/redact.hpp"

#include <doctest/doctest.h>

#include <random>
#include <string>
#include <vector>

using namespace cachewise;
using namespace cachewise::analysis;
using model::SegmentKind;

namespace {

std::string
json_string(std::string_view s)
{
    std::string out;
    ingest::append_json_string(out, s);
    return out;
}

// Renderings as the ingest renderer writes them (keys sorted, compact).
std::string
text_block(std::string_view text)
{
    return "{\"text\":" + json_string(text) + ",\"type\":\"text\"}";
}

std::string
tool_result(const std::vector<std::string>& texts)
{
    std::string out = "{\"content\":[";
    for (std::size_t i = 0; i < texts.size(); ++i) {
        out += (i > 0 ? "," : "") + text_block(texts[i]);
    }
    return out + "],\"tool_use_id\":\"toolu_1\",\"type\":\"tool_result\"}";
}

std::string
tool_use(std::string_view command)
{
    return "{\"id\":\"toolu_1\",\"input\":{\"command\":" + json_string(command) +
           "},\"name\":\"Bash\",\"type\":\"tool_use\"}";
}

bool
finds(std::string_view rendered, SegmentKind kind)
{
    return !find_secrets(model::display_text(rendered, kind)).empty();
}

} // namespace

TEST_SUITE("analysis::secrets")
{
    TEST_CASE("the prefilter passes every rendering whose display text holds a secret")
    {
        // Pieces of keys, names and the bytes that separate them; keys are
        // built at run time so that no whole key sits in the sources.
        const std::vector<std::string> pieces = {"sk-",
                                                 "ant-",
                                                 "api03-",
                                                 "proj-",
                                                 "AKIA",
                                                 "AIza",
                                                 "ghp_",
                                                 "github_pat_",
                                                 "xoxb-",
                                                 "sk_live_",
                                                 "rk_test_",
                                                 "hf_",
                                                 "glpat-",
                                                 "npm_",
                                                 "xai-",
                                                 "postgres://",
                                                 "admin",
                                                 "@",
                                                 "&",
                                                 "#$",
                                                 "eyJ",
                                                 "hbGciOiJIUzI1NiJ9",
                                                 ".",
                                                 "-----BEGIN",
                                                 " RSA PRIVATE KEY-----",
                                                 "-----END",
                                                 "Bearer",
                                                 "bearer",
                                                 "api_key",
                                                 "apiKey",
                                                 "PASSWORD",
                                                 "token",
                                                 "secret",
                                                 "pwd",
                                                 "client_credential",
                                                 "passwd",
                                                 "monkey",
                                                 "max_tokens",
                                                 ":",
                                                 "=",
                                                 " ",
                                                 "\"",
                                                 "'",
                                                 "\\",
                                                 "\t",
                                                 "\n",
                                                 "\x1b",
                                                 "Q7X2M4N8P5R3T6V9",
                                                 "Zq8xY2vB7nLm4Kp9aB",
                                                 "9a8b7c6d5e4f3a2b1c",
                                                 "the",
                                                 "cache",
                                                 "word",
                                                 "_",
                                                 "-",
                                                 "{",
                                                 "},{",
                                                 "\xC3\xA9"};
        std::mt19937 rng(40);
        const auto text = [&] {
            std::string t;
            for (int n = static_cast<int>(rng() % 12); n > 0; --n) {
                t += pieces[rng() % pieces.size()];
            }
            return t;
        };
        int secrets = 0;
        for (int round = 0; round < 50000; ++round) {
            const std::string a = text();
            const std::string b = text();
            const std::vector<std::pair<std::string, SegmentKind>> renderings = {
                {text_block(a), SegmentKind::text},
                {tool_result({a}), SegmentKind::tool_result},
                {tool_result({a, b}), SegmentKind::tool_result},
                {tool_use(a), SegmentKind::tool_use},
                {a, SegmentKind::text}, // not JSON: shown as it is
            };
            for (const auto& pair : renderings) {
                const std::string& rendered = pair.first; // INFO's lambda takes no binding
                const SegmentKind kind = pair.second;
                // The tags a TextStore keeps answer as the scan does, for every kind.
                CHECK(may_hold_secret(secret_tags(rendered), kind) ==
                      may_hold_secret(rendered, kind));
                if (finds(rendered, kind)) {
                    ++secrets;
                    INFO(rendered);
                    CHECK(may_hold_secret(rendered, kind));
                }
            }
        }
        CHECK(secrets > 1000); // the pieces do make secrets
    }

    TEST_CASE("a key split over two text blocks of a tool_result is not missed")
    {
        const std::string key = "sk-ant-api03-" + std::string("Zq8xY2vB7nLm4Kp9");
        const std::string rendered = tool_result({"see " + key.substr(0, 5), key.substr(5)});
        REQUIRE(finds(rendered, SegmentKind::tool_result));
        CHECK(may_hold_secret(rendered, SegmentKind::tool_result));
    }

    TEST_CASE("ordinary prompt text is passed over")
    {
        CHECK_FALSE(may_hold_secret(
            text_block("I'll cache `schema_worker1` in src/layout.hpp so that the worker stays "
                       "typed.\n\x1b[1;31merror[E0706]\x1b[0m: mismatched types; max_tokens: 4096, "
                       "the key to it is a token"),
            SegmentKind::text));
        CHECK_FALSE(may_hold_secret(tool_result({"ok", "done"}), SegmentKind::text));
        CHECK_FALSE(may_hold_secret("", SegmentKind::text));
    }

    TEST_CASE("a secret in a shared prefix is one finding with one occurrence per request")
    {
        const std::string key = "sk-ant-api03-" + std::string("Zq8xY2vB7nLm4Kp9");
        const std::vector<std::string> texts = {text_block("use " + key), text_block("hello"),
                                                text_block("more"), text_block("other")};
        model::TextStore store;
        const auto segment = [&](std::size_t t, const Hash128& parent) {
            model::Segment s;
            s.content = hash_bytes(texts[t]);
            store.put(s.content, texts[t]);
            s.chain = model::chain_link(parent, s);
            return s;
        };
        const auto request = [&](const std::vector<std::size_t>& order, std::uint64_t root) {
            model::Request r;
            r.id = "r" + std::to_string(order.size());
            Hash128 chain{root, root};
            for (const auto t : order) {
                r.segments.push_back(segment(t, chain));
                chain = r.segments.back().chain;
            }
            return r;
        };
        SecretScanner scanner(store, test::rules());
        scanner.add(request({0, 1}, 1));
        scanner.add(request({0, 1, 2}, 1)); // the prefix of the one before
        scanner.add(request({3, 0}, 2));    // elsewhere, the same block
        scanner.add(request({0}, 1));
        REQUIRE(scanner.findings().size() == 1);
        CHECK(scanner.findings()[0].occurrences == 4);
        CHECK(scanner.findings()[0].request == "r2");

        // Thousands of other contents later (the table grows), still known.
        for (std::uint64_t i = 0; i < 3000; ++i) {
            model::Request other;
            model::Segment s;
            s.content = Hash128{i * 0x9E3779B97F4A7C15ULL, i};
            s.chain = Hash128{i, i + 7};
            other.segments.push_back(s);
            scanner.add(other);
        }
        scanner.add(request({3, 0}, 3));
        REQUIRE(scanner.findings().size() == 1);
        CHECK(scanner.findings()[0].occurrences == 5);
    }

    TEST_CASE("texts put before the scanner was made (untagged) are scanned as well")
    {
        const std::string key = "sk-ant-api03-" + std::string("Zq8xY2vB7nLm4Kp9");
        const std::string text = text_block("use " + key);
        model::TextStore store;
        store.put(hash_bytes(text), text);
        SecretScanner scanner(store, test::rules());
        model::Request r;
        model::Segment s;
        s.content = hash_bytes(text);
        s.chain = model::chain_link(Hash128{1, 1}, s);
        r.segments.push_back(s);
        scanner.add(r);
        CHECK(scanner.findings().size() == 1);
    }
}
