#include "analysis/request_heads.hpp"

#include <doctest/doctest.h>

#include <numeric>

using namespace cachewise;
using model::Request;

namespace {

// A head with every field away from its default.
Request
full_head(int n)
{
    Request r;
    r.id = "req_" + std::to_string(n);
    r.stream = "session-" + std::to_string(n % 3);
    r.workspace = "workspace-a";
    r.file = "/logs/a-rather-long-file-name-that-is-not-inline.jsonl";
    r.line = 100 + static_cast<std::uint64_t>(n);
    r.provider = "openai";
    r.format = model::ApiFormat::openai_responses;
    r.model = "gpt-5.1-codex-max";
    r.served_model = "gpt-5.1-codex-max-2025-11-19";
    r.started_at = Timestamp{1000 + n};
    r.first_token_at = Timestamp{2000 + n};
    r.ended_at = Timestamp{3000 + n};
    r.params = {model::Param{"temperature", "0.2", true, model::Level::system},
                model::Param{"tool_choice", "", false, model::Level::tools}};
    r.auto_cache_control = model::CacheControl{model::Ttl::one_hour};
    model::Usage u;
    u.schema = model::UsageSchema::inclusive;
    u.dialect = "openai";
    u.prompt_tokens = 5000 + n;
    u.cached_tokens = 4096;
    u.output_tokens = 12;
    u.cost_usd = 0.25;
    r.usage = u;
    r.partial_share = model::PartialShare{3, 777, Hash128{1, 2}};
    r.continuation = model::Continuation{Hash128{3, 4}, 900};
    r.provider_miss_reason = "";
    r.cache_key = "key-" + std::to_string(n % 2);
    r.retention = "24h";
    r.explicit_mode = true;
    r.route = "Azure";
    r.cached_content = "cachedContents/abc";
    r.cache_create = model::CacheCreate{"cachedContents/abc", 300.0, Timestamp{9}};
    r.prompt_logged = false;
    r.breakpoints_logged = false;
    r.notes = {"usage scaled", "note " + std::to_string(n % 2)};
    r.token_scale = 1.25;
    return r;
}

void
check_same(const Request& a, const Request& b)
{
    CHECK(a.id == b.id);
    CHECK(a.stream == b.stream);
    CHECK(a.workspace == b.workspace);
    CHECK(a.file == b.file);
    CHECK(a.line == b.line);
    CHECK(a.provider == b.provider);
    CHECK(a.format == b.format);
    CHECK(a.model == b.model);
    CHECK(a.served_model == b.served_model);
    CHECK(a.started_at == b.started_at);
    CHECK(a.first_token_at == b.first_token_at);
    CHECK(a.ended_at == b.ended_at);
    REQUIRE(a.params.size() == b.params.size());
    for (std::size_t k = 0; k < a.params.size(); ++k) {
        CHECK(a.params[k].name == b.params[k].name);
        CHECK(a.params[k].value == b.params[k].value);
        CHECK(a.params[k].present == b.params[k].present);
        CHECK(a.params[k].level == b.params[k].level);
    }
    CHECK(a.auto_cache_control == b.auto_cache_control);
    REQUIRE(a.usage.has_value() == b.usage.has_value());
    if (a.usage) {
        const model::Usage& x = *a.usage;
        const model::Usage& y = *b.usage;
        CHECK(x.schema == y.schema);
        CHECK(x.dialect == y.dialect);
        CHECK(x.input_tokens == y.input_tokens);
        CHECK(x.cache_read == y.cache_read);
        CHECK(x.cache_write == y.cache_write);
        CHECK(x.cache_write_5m == y.cache_write_5m);
        CHECK(x.cache_write_1h == y.cache_write_1h);
        CHECK(x.output_tokens == y.output_tokens);
        CHECK(x.prompt_tokens == y.prompt_tokens);
        CHECK(x.cached_tokens == y.cached_tokens);
        CHECK(x.cache_write_tokens == y.cache_write_tokens);
        CHECK(x.hit_tokens == y.hit_tokens);
        CHECK(x.miss_tokens == y.miss_tokens);
        CHECK(x.summed_from_iterations == y.summed_from_iterations);
        CHECK(x.cost_usd == y.cost_usd);
        CHECK(x.origin == y.origin);
    }
    CHECK(a.partial_share.has_value() == b.partial_share.has_value());
    if (a.partial_share) {
        CHECK(a.partial_share->segment == b.partial_share->segment);
        CHECK(a.partial_share->tokens == b.partial_share->tokens);
        CHECK(a.partial_share->chain == b.partial_share->chain);
    }
    CHECK(a.continuation.has_value() == b.continuation.has_value());
    if (a.continuation) {
        CHECK(a.continuation->chain == b.continuation->chain);
        CHECK(a.continuation->tokens == b.continuation->tokens);
    }
    CHECK(a.provider_miss_reason == b.provider_miss_reason);
    CHECK(a.cache_key == b.cache_key);
    CHECK(a.retention == b.retention);
    CHECK(a.explicit_mode == b.explicit_mode);
    CHECK(a.route == b.route);
    CHECK(a.cached_content == b.cached_content);
    CHECK(a.cache_create.has_value() == b.cache_create.has_value());
    if (a.cache_create) {
        CHECK(a.cache_create->name == b.cache_create->name);
        CHECK(a.cache_create->ttl_seconds == b.cache_create->ttl_seconds);
        CHECK(a.cache_create->expire_time == b.cache_create->expire_time);
    }
    CHECK(a.prompt_logged == b.prompt_logged);
    CHECK(a.breakpoints_logged == b.breakpoints_logged);
    CHECK(a.notes == b.notes);
    CHECK(a.token_scale == b.token_scale);
}

} // namespace

TEST_SUITE("analysis::RequestHeads")
{
    TEST_CASE("gives back every usage field, present, absent or zero")
    {
        analysis::RequestHeads heads;
        Request r;
        model::Usage u;
        u.dialect = "deepseek";
        u.schema = model::UsageSchema::inclusive;
        u.input_tokens = 0; // present and zero: not the same as absent
        u.cache_read = 1;
        u.cache_write = 2;
        u.cache_write_5m = 3;
        u.cache_write_1h = 4;
        u.output_tokens = 5;
        u.prompt_tokens = model::k_max_token_count;
        u.cached_tokens = 7;
        u.cache_write_tokens = 8;
        u.hit_tokens = 9;
        u.miss_tokens = 10;
        u.summed_from_iterations = true;
        u.cost_usd = 0.0;
        u.origin = model::Usage::Origin::span;
        r.usage = u;
        heads.push_back(r);
        model::Usage sparse;
        sparse.cache_write_1h = 42;
        r.usage = sparse;
        heads.push_back(r);
        r.usage.reset();
        heads.push_back(r);

        r.usage = u;
        check_same(heads.get(0), r);
        CHECK(heads.usage(0)->input_tokens == 0);
        r.usage = sparse;
        check_same(heads.get(1), r);
        CHECK(!heads.usage(1)->input_tokens);
        CHECK(!heads.usage(1)->cost_usd);
        CHECK(!heads.usage(2));
    }

    TEST_CASE("gives back every field of every head, pooled or not")
    {
#if defined(__GLIBCXX__) && defined(__x86_64__)
        // A field added to model::Request must be kept by RequestHeads
        // (compact and get) and checked here; then update this size.
        // (response_id and response_output are not: ingest::Delivery takes
        // them out before a request is delivered.)
        CHECK(sizeof(Request) == 1000);
        // The same for model::Usage, which RequestHeads packs field by field.
        CHECK(sizeof(model::Usage) == 232);
#endif
        analysis::RequestHeads heads;
        for (int n = 0; n < 6; ++n) {
            heads.push_back(full_head(n));
        }
        heads.push_back(Request{}); // every default, nothing rare
        REQUIRE(heads.size() == 7);
        for (int n = 0; n < 6; ++n) {
            CAPTURE(n);
            check_same(heads.get(static_cast<std::size_t>(n)), full_head(n));
            CHECK(heads.id(static_cast<std::size_t>(n)) == full_head(n).id);
            CHECK(heads.stream(static_cast<std::size_t>(n)) == full_head(n).stream);
            CHECK(heads.started_at(static_cast<std::size_t>(n)) == full_head(n).started_at);
        }
        check_same(heads.get(6), Request{});
    }

    TEST_CASE("set replaces a head; permute reorders them")
    {
        analysis::RequestHeads heads;
        for (int n = 0; n < 5; ++n) {
            heads.push_back(full_head(n));
        }
        Request changed = full_head(9);
        changed.notes.clear();
        changed.params.clear();
        heads.set(2, Request(changed));
        check_same(heads.get(2), changed);
        const std::vector<std::size_t> order = {4, 2, 0, 3, 1};
        heads.permute(order);
        for (std::size_t k = 0; k < order.size(); ++k) {
            CAPTURE(k);
            check_same(heads.get(k),
                       order[k] == 2 ? changed : full_head(static_cast<int>(order[k])));
        }
    }
}
