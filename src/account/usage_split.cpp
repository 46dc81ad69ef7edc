#include "account/usage_split.hpp"

#include "analysis/rule_catalogue.hpp"
#include "util/format.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace cachewise::account {

using ruleset::UsageSchema;

namespace {

std::int64_t
inclusive_write(const model::Usage& u)
{
    if (u.cache_write_tokens) {
        return *u.cache_write_tokens;
    }
    return u.cache_write_total();
}

} // namespace

std::optional<ReportedSplit>
reported_split(const model::Usage& u)
{
    const auto total = u.total_input();
    if (!total) {
        return std::nullopt;
    }
    ReportedSplit r;
    r.split.output = u.output_tokens.value_or(0);
    if (u.schema == UsageSchema::inclusive) {
        r.split.read = u.read_tokens();
        r.split.write_5m = inclusive_write(u);
        // An inconsistent record (CW030) must not give a negative count.
        r.split.fresh = std::max<std::int64_t>(0, *total - r.split.read - r.split.write_5m);
        return r;
    }
    r.split.read = u.read_tokens();
    r.split.fresh = *u.input_tokens;
    if (u.cache_write_5m || u.cache_write_1h) {
        r.split.write_5m = u.cache_write_5m.value_or(0);
        r.split.write_1h = u.cache_write_1h.value_or(0);
    } else {
        // Without the cache_creation object the TTL is unknown; 5m is the default.
        r.split.write_5m = u.cache_write.value_or(0);
        r.write_ttl_assumed = r.split.write_5m > 0;
    }
    return r;
}

namespace {

// Reports CW030 findings of one request's usage.
struct UsageReporter {
    const model::Request& r;
    std::vector<analysis::Finding>& out;

    void operator()(std::string kind, std::string message) const
    {
        analysis::Finding f = analysis::make_finding(analysis::rule::k_usage_inconsistent, r);
        f.location.path = "usage";
        f.kind = std::move(kind);
        f.message = std::move(message);
        out.push_back(std::move(f));
    }
};

// Every schema: a total to account by, no negative count, and Anthropic's
// write split adding up.
void
check_counts(const model::Usage& u, const UsageReporter& add)
{
    const bool inclusive = u.schema == UsageSchema::inclusive;
    if (!u.total_input()) {
        add("missing", inclusive
                           ? fmt::format("the prompt total ({}) is missing: the request "
                                         "cannot be accounted",
                                         u.dialect == "gemini" ? "usageMetadata.promptTokenCount"
                                                               : "usage.prompt_tokens")
                           : std::string("usage.input_tokens is missing: the request cannot "
                                         "be accounted"));
    }
    const std::pair<const char*, const std::optional<std::int64_t>*> counts[] = {
        {"input_tokens", &u.input_tokens},
        {"cache_read_input_tokens", &u.cache_read},
        {"cache_creation_input_tokens", &u.cache_write},
        {"cache_creation.ephemeral_5m_input_tokens", &u.cache_write_5m},
        {"cache_creation.ephemeral_1h_input_tokens", &u.cache_write_1h},
        {"output_tokens", &u.output_tokens},
        {"prompt_tokens", &u.prompt_tokens},
        {"cached_tokens", &u.cached_tokens},
        {"cache_write_tokens", &u.cache_write_tokens},
        {"prompt_cache_hit_tokens", &u.hit_tokens},
        {"prompt_cache_miss_tokens", &u.miss_tokens}};
    for (const auto& [name, value] : counts) {
        if (*value && **value < 0) {
            add("negative", fmt::format("usage.{} is negative ({})", name, group_digits(**value)));
        }
    }
    if (u.cache_write && (u.cache_write_5m || u.cache_write_1h)) {
        const std::int64_t parts = u.cache_write_5m.value_or(0) + u.cache_write_1h.value_or(0);
        if (parts != *u.cache_write) {
            add("write-split",
                fmt::format("identity cache_creation = 5m + 1h failed: "
                            "cache_creation_input_tokens {} is not the sum of its 5m and 1h "
                            "parts ({} + {} = {})",
                            group_digits(*u.cache_write),
                            group_digits(u.cache_write_5m.value_or(0)),
                            group_digits(u.cache_write_1h.value_or(0)), group_digits(parts)));
        }
    }
}

// The inclusive schema's identities: DeepSeek's hit + miss, and a gateway
// record carrying both schemas (LiteLLM).
void
check_inclusive_identities(const model::Usage& u, const UsageReporter& add)
{
    // DeepSeek: "prompt_cache_hit_tokens + prompt_cache_miss_tokens" make up
    // prompt_tokens, and prompt_tokens_details.cached_tokens repeats the hits.
    if (u.hit_tokens && u.miss_tokens && u.prompt_tokens &&
        *u.hit_tokens + *u.miss_tokens != *u.prompt_tokens) {
        add("hit+miss",
            fmt::format("identity hit + miss = prompt failed: "
                        "prompt_cache_hit_tokens {} + prompt_cache_miss_tokens {} = {}, "
                        "but prompt_tokens is {}",
                        group_digits(*u.hit_tokens), group_digits(*u.miss_tokens),
                        group_digits(*u.hit_tokens + *u.miss_tokens),
                        group_digits(*u.prompt_tokens)));
    }
    if (u.hit_tokens && u.cached_tokens && *u.hit_tokens != *u.cached_tokens) {
        add("cached=hit", fmt::format("identity cached = hit failed: "
                                      "prompt_tokens_details.cached_tokens {} differs from "
                                      "prompt_cache_hit_tokens {}",
                                      group_digits(*u.cached_tokens), group_digits(*u.hit_tokens)));
    }
    // A gateway record with both schemas (LiteLLM): the two read counts must
    // agree, and Anthropic's parts must add up to the inclusive total.
    if (u.cached_tokens && u.cache_read && !u.hit_tokens && *u.cached_tokens != *u.cache_read) {
        add("two-schemas",
            fmt::format("identity cached = cache_read failed: prompt_tokens_details.cached_tokens "
                        "{} differs from cache_read_input_tokens {} in the same record",
                        group_digits(*u.cached_tokens), group_digits(*u.cache_read)));
    }
    if (u.prompt_tokens && u.input_tokens && (u.cache_read || u.cache_write)) {
        const std::int64_t parts =
            *u.input_tokens + u.cache_read.value_or(0) + u.cache_write.value_or(0);
        if (parts != *u.prompt_tokens) {
            add("two-schemas",
                fmt::format("identity prompt = input + cache_read + cache_creation failed: "
                            "{} + {} + {} = {}, but prompt_tokens is {} (one schema counts the "
                            "cache twice)",
                            group_digits(*u.input_tokens), group_digits(u.cache_read.value_or(0)),
                            group_digits(u.cache_write.value_or(0)), group_digits(parts),
                            group_digits(*u.prompt_tokens)));
        }
    }
}

// What was read and written cannot exceed the prompt.
void
check_inclusive_bounds(const model::Usage& u, const UsageReporter& add)
{
    if (const auto total = u.total_input()) {
        const std::int64_t read = u.read_tokens();
        const std::int64_t write = inclusive_write(u);
        const char* total_name = u.dialect == "gemini" ? "promptTokenCount" : "prompt_tokens";
        const char* read_name = u.dialect == "gemini" ? "cachedContentTokenCount" : "cached";
        if (read > *total) {
            add("cached<=prompt",
                fmt::format("identity {} <= {} failed: {} {} exceed {} {}", read_name, total_name,
                            read_name, group_digits(read), total_name, group_digits(*total)));
        } else if (read + write > *total) {
            add("cached+write<=prompt",
                fmt::format("identity cached + write <= {} failed: {} read + {} written exceed "
                            "{} {}",
                            total_name, group_digits(read), group_digits(write), total_name,
                            group_digits(*total)));
        }
    }
}

} // namespace

std::vector<analysis::Finding>
check_usage(const model::Request& r)
{
    std::vector<analysis::Finding> out;
    if (!r.usage) {
        return out;
    }
    const UsageReporter add{r, out};
    check_counts(*r.usage, add);
    if (r.usage->schema == UsageSchema::inclusive) {
        check_inclusive_identities(*r.usage, add);
        check_inclusive_bounds(*r.usage, add);
    }
    return out;
}

} // namespace cachewise::account
