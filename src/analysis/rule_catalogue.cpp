#include "analysis/rule_catalogue.hpp"

#include "util/enum_names.hpp"

#include <array>
#include <stdexcept>
#include <string>

namespace cachewise::analysis {

constexpr auto k_severity_names = util::names_of<Severity>({"info", "warning", "error"});

std::string_view
to_string(Severity severity)
{
    return k_severity_names[severity];
}

namespace {

// The catalogue itself: data, one entry per rule, in id order.
constexpr auto k_rules = std::to_array<RuleInfo>({
    {rule::k_prefix_changed, "prefix-changed", Severity::warning,
     "content inside the earlier request's cached prefix changed",
     "keep everything before the last breakpoint byte-identical; append new content at the "
     "end instead of editing earlier turns"},
    {rule::k_tools_changed, "tools-changed", Severity::warning,
     "tool definitions were added, removed or changed, which invalidates every cache level",
     "keep the tool list fixed for a session; load optional tools once, at the start"},
    {rule::k_tools_reordered, "tools-reordered", Severity::warning,
     "the same tools were sent in a different order",
     "sort the tool list by name before sending it"},
    {rule::k_serialization_drift, "serialization-drift", Severity::warning,
     "the changed segments are equal as JSON: only key order or number formatting differs",
     "serialise with a stable key order (insertion-ordered maps, sorted keys) and stable "
     "number formatting"},
    {rule::k_scope_changed, "scope-changed", Severity::warning,
     "a request parameter that scopes the cache changed (model, tool_choice, thinking, "
     "images, speed, web search or citations)",
     "keep cache-scoping parameters fixed within a session, or accept the cache level they "
     "invalidate"},
    {rule::k_dynamic_field, "dynamic-field", Severity::warning,
     "a value that changes per request (date, time, id, counter, random token) sits inside "
     "the cached prefix",
     "move dynamic values after the last breakpoint, e.g. into the latest user message"},
    {rule::k_no_breakpoint, "no-breakpoint", Severity::warning,
     "a prefix long enough to cache is sent again and again without cache_control",
     "add a cache_control breakpoint at the end of the stable part (system prompt, tools, or "
     "the last message), or a top-level automatic cache_control"},
    {rule::k_below_minimum, "below-minimum", Severity::warning,
     "a breakpoint's prefix is shorter than the model's minimum cacheable length: nothing is "
     "written and no error is returned",
     "move the breakpoint later so its prefix reaches the minimum, or drop it"},
    {rule::k_too_many_breakpoints, "too-many-breakpoints", Severity::error,
     "more than 4 breakpoints (the automatic one counts): the API rejects the request",
     "keep at most 4 cache_control markers, counting a top-level automatic one"},
    {rule::k_ttl_order, "ttl-order", Severity::error,
     "a 1h breakpoint after a 5m one, or an automatic TTL that conflicts with a marker on the "
     "same block: the API rejects the request",
     "put 1h breakpoints before 5m ones and give the automatic marker the same TTL"},
    {rule::k_lookback_exceeded, "lookback-exceeded", Severity::warning,
     "an earlier entry was alive but more than 20 positions before every breakpoint: the "
     "lookback window missed it",
     "add a breakpoint closer to the previous write, e.g. one every 15-20 blocks of growth"},
    {rule::k_cache_control_not_allowed, "cache-control-not-allowed", Severity::error,
     "cache_control on a block that cannot carry it (a thinking block, an empty text block)",
     "move the marker to the nearest text, tool or tool_result block before it"},
    {rule::k_dynamic_before_stable, "dynamic-before-stable", Severity::info,
     "dynamic content comes ahead of stable content that could be cached",
     "move the dynamic part after the stable part, e.g. into the last user turn"},
    {rule::k_unwritten_breakpoints, "unwritten-breakpoints", Severity::warning,
     "more explicit breakpoints than a request writes (OpenAI: the latest 4 in explicit mode, "
     "3 beside the implicit one): the earlier ones write nothing",
     "keep at most that many markers, on the prefixes that are reused"},
    {rule::k_unknown_type, "unknown-type", Severity::warning,
     "a content block, part or item of a type cachewise does not know for its API: a typo the "
     "API rejects, or a type it added",
     "use a documented type (check the spelling against the API reference)"},
    {rule::k_ttl_expired, "ttl-expired", Severity::info,
     "the gap since the entry was written or last read exceeded its TTL",
     "send the next request sooner, pre-warm, or use the 1h TTL for gaps up to an hour"},
    {rule::k_concurrent, "concurrent", Severity::info,
     "the request started before the response of the request that writes the entry began",
     "wait for the first response to begin before sending parallel requests that share it"},
    {rule::k_unexplained_miss, "unexplained-miss", Severity::warning,
     "an identical marked prefix was alive but nothing was read: eviction, routing or "
     "workspace isolation",
     "check that requests share one workspace and API key; report persistent cases to the "
     "provider"},
    {rule::k_write_without_read, "write-without-read", Severity::warning,
     "entries were written (at the write premium) and expired without a single read",
     "drop breakpoints whose prefixes are never reused, or reuse them within the TTL; keep "
     "those that reads also come through, or the reads go with the writes"},
    {rule::k_ttl_advice, "ttl-advice", Severity::info,
     "the reuse gaps suit another TTL: gaps between 5 minutes and 1 hour favour 1h; a 1h "
     "premium that reuse never needed favours 5m",
     "switch the breakpoints' ttl as advised; the finding gives the net saving"},
    {rule::k_warmed_elsewhere, "warmed-elsewhere", Severity::info,
     "the provider read more than anything in this log could have written",
     "nothing to fix: other traffic (or an earlier log) warmed the cache"},
    {rule::k_usage_inconsistent, "usage-inconsistent", Severity::error,
     "a usage record breaks the accounting identities (missing or negative counts, or a "
     "cache_creation total that is not the sum of its 5m and 1h parts)",
     "fix the logger or the gateway that produced the record"},
    {rule::k_usage_mismatch, "usage-mismatch", Severity::warning,
     "reported cache reads or writes differ from what the provider's documented cache "
     "should have done, beyond the token-estimate tolerance",
     "see the attributed cause in the finding's kind"},
    {rule::k_diagnosis_disagrees, "diagnosis-disagrees", Severity::warning,
     "the provider's own cache_miss_reason (Anthropic cache diagnostics) names another cause "
     "than cachewise found",
     "read both: either the simulation is wrong or the provider's cache behaved otherwise "
     "than documented; the finding's kind is the provider's reason"},
    {rule::k_secret_in_prompt, "secret-in-prompt", Severity::error,
     "a credential (API key, token, password, private key) is part of the prompt: it is "
     "sent to the provider with every request, and rotating it changes the prefix and "
     "busts the cache",
     "take the credential out of the prompt; give the model a reference to it, and let the "
     "tool that needs it read it from the environment"},
});

} // namespace

std::span<const RuleInfo>
rule_catalogue()
{
    return k_rules;
}

const RuleInfo&
rule_info(std::string_view id)
{
    for (const auto& r : rule_catalogue()) {
        if (r.id == id) {
            return r;
        }
    }
    throw std::out_of_range("unknown rule id " + std::string(id));
}

std::string
canonical_rule_id(std::string id)
{
    if (id.size() > 2 && (id[0] == 'c' || id[0] == 'C') && (id[1] == 'w' || id[1] == 'W')) {
        id[0] = 'C';
        id[1] = 'W';
    }
    return id;
}

Finding
make_finding(std::string_view id)
{
    Finding f;
    set_rule(f, id);
    return f;
}

Finding
make_finding(std::string_view id, const model::Request& request)
{
    Finding f = make_finding(id);
    f.request = request.id;
    f.stream = request.stream;
    f.file = request.file;
    f.line = request.line;
    return f;
}

void
set_rule(Finding& f, std::string_view id)
{
    const RuleInfo& info = rule_info(id);
    f.rule = std::string(info.id);
    f.name = std::string(info.name);
    f.severity = info.severity;
}

} // namespace cachewise::analysis
