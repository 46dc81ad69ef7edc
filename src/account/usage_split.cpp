#include "account/usage_split.hpp"

#include "analysis/rule_catalogue.hpp"

#include <fmt/format.h>

namespace cachewise::account {

std::optional<ReportedSplit>
reported_split(const model::Usage& u)
{
    if (!u.input_tokens) {
        return std::nullopt;
    }
    ReportedSplit r;
    r.split.read = u.cache_read.value_or(0);
    r.split.fresh = *u.input_tokens;
    r.split.output = u.output_tokens.value_or(0);
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

std::vector<analysis::Finding>
check_usage(const model::Request& r)
{
    std::vector<analysis::Finding> out;
    if (!r.usage) {
        return out;
    }
    const auto& u = *r.usage;
    const auto add = [&](std::string kind, std::string message) {
        analysis::Finding f = analysis::make_finding("CW030");
        f.request = r.id;
        f.stream = r.stream;
        f.file = r.file;
        f.line = r.line;
        f.location.path = "usage";
        f.kind = std::move(kind);
        f.message = std::move(message);
        out.push_back(std::move(f));
    };
    if (!u.input_tokens) {
        add("missing", "usage.input_tokens is missing: the request cannot be accounted");
    }
    const std::pair<const char*, const std::optional<std::int64_t>*> counts[] = {
        {"input_tokens", &u.input_tokens},
        {"cache_read_input_tokens", &u.cache_read},
        {"cache_creation_input_tokens", &u.cache_write},
        {"cache_creation.ephemeral_5m_input_tokens", &u.cache_write_5m},
        {"cache_creation.ephemeral_1h_input_tokens", &u.cache_write_1h},
        {"output_tokens", &u.output_tokens}};
    for (const auto& [name, value] : counts) {
        if (*value && **value < 0) {
            add("negative", fmt::format("usage.{} is negative ({})", name, **value));
        }
    }
    if (u.cache_write && (u.cache_write_5m || u.cache_write_1h)) {
        const std::int64_t parts = u.cache_write_5m.value_or(0) + u.cache_write_1h.value_or(0);
        if (parts != *u.cache_write) {
            add("write-split", fmt::format("cache_creation_input_tokens {} is not the sum of its "
                                           "5m and 1h parts ({} + {} = {})",
                                           *u.cache_write, u.cache_write_5m.value_or(0),
                                           u.cache_write_1h.value_or(0), parts));
        }
    }
    return out;
}

} // namespace cachewise::account
