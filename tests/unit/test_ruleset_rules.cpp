#include "helpers.hpp"
#include "ruleset/embedded.hpp"
#include "ruleset/rules.hpp"
#include "util/error.hpp"
#include "util/time.hpp"

#include <doctest/doctest.h>

#include <filesystem>

using namespace cachewise;
using namespace cachewise::ruleset;

namespace {

// Copies the built-in rules into a directory, with one file replaced.
std::string
rules_dir_with(const test::TempFile& anchor, const std::string& relative,
               const std::string& content)
{
    std::string dir = anchor.dir() + "/rules";
    for (const auto& f : embedded_rule_files()) {
        test::TempFile::write(dir + "/" + std::string(f.path), std::string(f.content));
    }
    test::TempFile::write(dir + "/" + relative, content);
    return dir;
}

std::string
load_error(const std::string& dir)
{
    try {
        load_rules(dir);
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

} // namespace

TEST_SUITE("ruleset::rules")
{
    TEST_CASE("built-in rules load, with a source and date on every fact")
    {
        const auto& r = test::rules();
        CHECK(r.provider("anthropic").integer("max_breakpoints") == 4);
        CHECK(r.provider("anthropic").integer("lookback_positions") == 20);
        CHECK(r.provider("anthropic").fact("tool_runs_count_as_one_position").value == 1);
        CHECK(r.provider("anthropic").ttl_seconds("5m") == 300);
        CHECK(r.provider("anthropic").ttl_seconds("1h") == 3600);
        CHECK(r.provider("anthropic").multiplier("write_5m") == doctest::Approx(1.25));
        CHECK(r.provider("anthropic").multiplier("write_1h") == doctest::Approx(2.0));
        CHECK(r.provider("anthropic").multiplier("read") == doctest::Approx(0.1));
        CHECK(!r.provider("anthropic").fact("max_breakpoints").provenance.source.empty());
        CHECK(r.provider("anthropic").fact("max_breakpoints").provenance.as_of == "2026-11-29");
        for (const auto& m : r.provider("anthropic").minimums) {
            CHECK(!m.provenance.source.empty());
        }
    }

    TEST_CASE("model ids are normalised across platforms and snapshots")
    {
        CHECK(normalize_model_id("claude-sonnet-4-5-20250929") == "claude-sonnet-4-5");
        CHECK(normalize_model_id("us.anthropic.claude-sonnet-4-5-20250929-v1:0") ==
              "claude-sonnet-4-5");
        CHECK(normalize_model_id("anthropic/claude-opus-4-1") == "claude-opus-4-1");
        CHECK(normalize_model_id("litellm_proxy/anthropic/claude-sonnet-4-20250514") ==
              "claude-sonnet-4");
        CHECK(normalize_model_id("claude-opus-4@20250514") == "claude-opus-4");
        // One spelling of family and version: OpenRouter writes "claude-4.6-sonnet".
        CHECK(normalize_model_id("Claude-3-5-Haiku-Latest") == "claude-haiku-3-5");
        CHECK(normalize_model_id("anthropic/claude-4.6-sonnet-20260217") == "claude-sonnet-4-6");
        CHECK(normalize_model_id("anthropic/claude-sonnet-4.6") == "claude-sonnet-4-6");
        // Other providers: versions with hyphens, gateway prefixes dropped.
        CHECK(normalize_model_id("gpt-5.6-sol") == "gpt-5-6-sol");
        CHECK(normalize_model_id("google/gemini-3-pro-preview") == "gemini-3-pro-preview");
        CHECK(normalize_model_id("litellm_proxy/deepseek/deepseek-chat") == "deepseek-chat");
    }

    TEST_CASE("every provider file loads with the facts its simulator needs")
    {
        const auto& r = test::rules();
        for (const auto name : ruleset::k_provider_names) {
            const auto& p = r.provider(name);
            CHECK(p.name == name);
            CHECK(!p.usage_schema.provenance.source.empty());
            CHECK(p.render_order.size() == 3);
        }
        CHECK(r.provider("openai").usage_schema.value == ruleset::UsageSchema::inclusive);
        CHECK(r.provider("bedrock").usage_schema.value == ruleset::UsageSchema::exclusive);
        CHECK(r.provider("openai").uses_breakpoints("gpt-5.6-sol"));
        CHECK(r.provider("openai").uses_breakpoints("gpt-6"));
        CHECK(!r.provider("openai").uses_breakpoints("gpt-5.5"));
        CHECK(!r.provider("openai").uses_breakpoints("gpt-4o"));
        // A dated snapshot of GPT-5 is not "GPT-5.2025"; a two-digit minor is a version.
        CHECK(!r.provider("openai").uses_breakpoints("gpt-5-2025-08-07"));
        CHECK(r.provider("openai").uses_breakpoints("gpt-5.10"));
        CHECK(!r.provider("openai").minimum_tokens("gpt-5-2025-08-07").certain()); // O-old's row
        CHECK(r.provider("openai").minimum_tokens("gpt-4o").tokens == 1024);
        CHECK(r.provider("deepseek").integer("unit_tokens") == 64);
        CHECK(!r.provider("deepseek").fact("unit_tokens").provenance.certain);
        CHECK(r.provider("vllm").integer("block_size") == 16);
        CHECK(r.provider("gemini").minimum_tokens("gemini-2.5-flash").tokens == 2048);
        CHECK(r.provider("bedrock").minimum_tokens("claude-opus-4-7").tokens == 4096);
        CHECK(r.provider("anthropic").minimum_tokens("claude-opus-4-7").tokens == 2048);
        CHECK(r.provider("sglang").labels.at("eviction").value == "lru");
        CHECK_THROWS((void)r.provider("mistral"));
    }

    TEST_CASE("DeepSeek prices have a peak tier in UTC hours")
    {
        const auto* p = test::rules().pricing.find("deepseek-v4-flash", "2026-11-29");
        REQUIRE(p);
        CHECK(p->prices.read == doctest::Approx(0.003));
        CHECK(p->peak_prices.read == doctest::Approx(0.006));
        CHECK(p->peak_minutes_utc.size() == 2);
        // Before the D-price: the launch rates, then the cache-hit cut
        // (provider-rules.md, DeepSeek prices); v4-pro has no earlier price.
        const auto* launch = test::rules().pricing.find("deepseek-v4-flash", "2026-04-25");
        REQUIRE(launch);
        CHECK(launch->prices.read == doctest::Approx(0.028));
        const auto* before = test::rules().pricing.find("deepseek-v4-flash", "2026-06-10");
        REQUIRE(before);
        CHECK(before->prices.read == doctest::Approx(0.0028));
        CHECK(before->prices.input == doctest::Approx(0.14));
        CHECK(before->peak_minutes_utc.empty());
        CHECK(test::rules().pricing.find("deepseek-v4-flash", "2026-04-23") == nullptr);
        CHECK(test::rules().pricing.find("deepseek-v4-pro", "2026-06-10") == nullptr);
    }

    TEST_CASE("minimum cacheable length per model (rule: minimum cacheable prompt length)")
    {
        const auto& a = test::rules().provider("anthropic");
        CHECK(a.minimum_tokens("claude-opus-5").tokens == 512);
        CHECK(a.minimum_tokens("claude-fable-5-1").tokens == 512);
        CHECK(a.minimum_tokens("claude-opus-4-8").tokens == 1024);
        CHECK(a.minimum_tokens("claude-sonnet-4-5-20250929").tokens == 1024);
        CHECK(a.minimum_tokens("claude-sonnet-4-20250514").tokens == 1024);
        CHECK(a.minimum_tokens("claude-opus-4-1-20250805").tokens == 1024);
        CHECK(a.minimum_tokens("claude-opus-4-7").tokens == 2048);
        CHECK(a.minimum_tokens("claude-3-5-haiku-20241022").tokens == 2048);
        CHECK(a.minimum_tokens("claude-opus-4-5").tokens == 4096);
        CHECK(a.minimum_tokens("claude-haiku-4-5").tokens == 4096);
        const auto unknown = a.minimum_tokens("claude-fable-5-2");
        CHECK(!unknown.known_model);
        CHECK(unknown.tokens == 1024);
        CHECK(!unknown.provenance->certain);
        CHECK(!a.minimum_tokens("claude-sonnet-5-5").provenance->certain);
    }

    TEST_CASE("prices per model")
    {
        const auto& p = test::rules().pricing;
        const auto* sonnet = p.find("claude-sonnet-4-5-20250929");
        REQUIRE(sonnet != nullptr);
        CHECK(sonnet->prices.input == doctest::Approx(3));
        CHECK(sonnet->prices.write_5m == doctest::Approx(3.75));
        CHECK(sonnet->prices.write_1h == doctest::Approx(6));
        CHECK(sonnet->prices.read == doctest::Approx(0.3));
        const auto* fable = p.find("claude-fable-5-1");
        REQUIRE(fable != nullptr);
        CHECK(fable->prices.read == doctest::Approx(0.25)); // 0.025x exception
        CHECK(p.find("claude-opus-5")->prices.input == doctest::Approx(5));
        CHECK(p.find("claude-opus-5-5")->prices.input == doctest::Approx(4));
        CHECK(p.find("mistral-large-2411") == nullptr);
        // OpenAI, Gemini and DeepSeek chat prices, each with a source.
        const auto* gpt = p.find("gpt-4o-2024-08-06");
        REQUIRE(gpt != nullptr);
        CHECK(gpt->prices.input == doctest::Approx(2.5));
        CHECK(gpt->prices.read == doctest::Approx(1.25));
        CHECK(!gpt->provenance.source.empty());
        REQUIRE(p.find("gemini-2-5-flash") != nullptr);
        // Before a model's first price period: not priced, and said so.
        CHECK(p.find("deepseek-chat", "2024-12-01") == nullptr);
        CHECK(p.starts_after("deepseek-chat", "2024-12-01") ==
              std::optional<std::string>("2025-02-09"));
        CHECK(!p.starts_after("deepseek-chat", "2025-12-01"));
    }

    TEST_CASE("a minimum that is only a bound or an assumption is not certain")
    {
        // Gemini 3 Pro: undocumented, assumed from the 2,048-token hit step
        // (measured at most 3,479); CW012 then says it is uncertain.
        const auto bound = test::rules().provider("gemini").minimum_tokens("gemini-3-pro-preview");
        CHECK(bound.tokens == 2048);
        CHECK(!bound.certain());
        CHECK(test::rules().provider("anthropic").minimum_tokens("claude-haiku-4-5").certain());
        CHECK(!test::rules().provider("gemini").minimum_tokens("gemini-9-ultra").certain());
        // Second-hand rows (quotes of the page) are not certain either.
        CHECK(!test::rules().provider("anthropic").minimum_tokens("claude-haiku-5-5").certain());
    }

    TEST_CASE("CW012's doubt about a minimum: none, uncertain (listed) or assumed (unlisted)")
    {
        CHECK(ruleset::minimum_doubt(true, true, "openai").empty());
        CHECK(ruleset::minimum_doubt(false, true, "gemini") ==
              " (uncertain for this model: rules/providers/gemini.json gives the sources)");
        CHECK(ruleset::minimum_doubt(false, false, "gemini") ==
              " (an assumed minimum: not documented for this model)");
    }

    TEST_CASE("a price file laid over the built-in prices replaces the models it matches")
    {
        ruleset::Pricing pricing = test::rules().pricing;
        test::TempFile overlay(
            R"({"schema_version":1,"currency":"USD","models":[{"name":"negotiated Sonnet","pattern":"claude-sonnet-4-5","prices":[{"input":2,"output":10,"write_5m":2.5,"write_1h":4,"read":0.2,"source":"our contract","as_of":"2026-11-30"}]},{"name":"in-house","pattern":"acme-7b","prices":[{"input":0.1,"output":0.1,"write_5m":0.1,"write_1h":0.1,"read":0.01,"source":"cost of our GPUs","as_of":"2026-11-30"}]}]})",
            "prices.json");
        ruleset::add_prices(pricing, overlay.path());
        CHECK(pricing.find("claude-sonnet-4-5")->prices.input == doctest::Approx(2));
        CHECK(pricing.find("claude-sonnet-4-5-20250929")->prices.input == doctest::Approx(2));
        CHECK(pricing.find("acme-7b")->prices.read == doctest::Approx(0.01));
        CHECK(pricing.find("claude-opus-5")->prices.input == doctest::Approx(5)); // untouched
        test::TempFile euros(R"({"schema_version":1,"currency":"EUR","models":[]})", "euros.json");
        CHECK_THROWS_WITH_AS(ruleset::add_prices(pricing, euros.path()),
                             doctest::Contains("currency: expected \"USD\""), Error);
    }

    TEST_CASE("invalidation levels come from the table")
    {
        const auto& a = test::rules().provider("anthropic");
        REQUIRE(a.invalidation_for("tool_choice") != nullptr);
        CHECK(a.invalidation_for("tool_choice")->level == Level::messages);
        CHECK(a.invalidation_for("speed")->level == Level::system);
        CHECK(a.invalidation_for("model")->level == Level::tools);
        CHECK(a.invalidation_for("temperature") == nullptr);
    }

    TEST_CASE("a broken rules file names the file and the key")
    {
        test::TempFile anchor("");
        std::string dir = rules_dir_with(anchor, "pricing.json", "{ not json");
        CHECK(load_error(dir).find("pricing.json: not valid JSON") != std::string::npos);

        dir = rules_dir_with(anchor, "providers/anthropic.json",
                             R"({"schema_version": 1, "provider": "anthropic",
                "usage_schema": {"value": "exclusive", "source": "x", "as_of": "2026-01-01"},
                "max_breakpoints": {"value": "four", "source": "x", "as_of": "2026-01-01"}})");
        const std::string e = load_error(dir);
        INFO(e);
        CHECK(e.find("providers/anthropic.json") != std::string::npos);
        CHECK(e.find("max_breakpoints.value: expected a number or true/false, found string") !=
              std::string::npos);

        dir = rules_dir_with(anchor, "providers/anthropic.json",
                             R"({"schema_version": 1, "provider": "anthropic",
                "usage_schema": {"value": "exclusive", "source": "x", "as_of": "2026-01-01"},
                "max_breakpoints": {"value": 4, "source": "x"}})");
        CHECK(load_error(dir).find("max_breakpoints.as_of: missing") != std::string::npos);

        dir = rules_dir_with(anchor, "tokens.json", R"({"schema_version": 2})");
        CHECK(load_error(dir).find("schema_version") != std::string::npos);
    }

    TEST_CASE("a bad model pattern is reported with its position")
    {
        test::TempFile anchor("");
        std::string text;
        for (const auto& f : embedded_rule_files()) {
            if (f.path == "pricing.json") {
                text = std::string(f.content);
            }
        }
        REQUIRE(!text.empty());
        const auto at = text.find("\"claude-opus-5\"");
        REQUIRE(at != std::string::npos);
        text.replace(at, 15, "\"claude-(opus\"");
        const std::string dir = rules_dir_with(anchor, "pricing.json", text);
        const std::string e = load_error(dir);
        CHECK(e.find("pricing.json") != std::string::npos);
        CHECK(e.find("pattern: invalid RE2 pattern") != std::string::npos);
    }

    TEST_CASE("the built-in rules pass every check a rules directory gets")
    {
        // At run time the embedded copy skips the regex compilation and the
        // example and counter-example matching (start-up time): this is where
        // they are checked, on the same files.
        test::TempFile anchor("");
        const std::string dir = anchor.dir() + "/rules";
        for (const auto& f : embedded_rule_files()) {
            test::TempFile::write(dir + "/" + std::string(f.path), std::string(f.content));
        }
        CHECK(load_error(dir).empty());
        const auto rules = load_rules(dir);
        CHECK(rules->dynamic_fields.patterns.size() ==
              test::rules().dynamic_fields.patterns.size());
        for (const auto& m : rules->pricing.models) {
            CHECK_MESSAGE(m.pattern.ok(), m.pattern.text());
        }
    }

    TEST_CASE("a rules directory missing a file is reported")
    {
        test::TempFile anchor("");
        CHECK(load_error(anchor.dir()).find("cannot be read") != std::string::npos);
    }
}
