#include "report/probe_printer.hpp"

#include "report/finding_json.hpp"
#include "report/request_json.hpp"
#include "util/escape.hpp"
#include "util/format.hpp"

#include <fmt/format.h>

namespace cachewise::report {

namespace {

using Json = nlohmann::ordered_json;

std::string
split_text(const account::Split& s)
{
    return fmt::format("read {:>7} · write 5m {:>7} · write 1h {:>7} · fresh {:>7}",
                       group_digits(s.read), group_digits(s.write_5m), group_digits(s.write_1h),
                       group_digits(s.fresh));
}

Json
split_json(const account::Split& s)
{
    return Json{{"read", s.read},
                {"write_5m", s.write_5m},
                {"write_1h", s.write_1h},
                {"fresh", s.fresh},
                {"output", s.output}};
}

std::string
miss_reason_text(const live::ProbeCall& c)
{
    if (!c.cache_miss_reason) {
        return c.diagnostics_requested ? "diagnostics: none returned" : "";
    }
    return c.cache_miss_reason->empty() ? "diagnostics: no miss"
                                        : "diagnostics: cache_miss_reason " + *c.cache_miss_reason;
}

void
print_plan(const live::ProbeResult& r, std::ostream& out)
{
    out << fmt::format("{} {}\n", r.method, safe_text(r.url)); // --base-url may hold a key
    for (const auto& [name, value] : r.headers) {
        out << fmt::format("  {}: {}\n", name, value);
    }
    if (r.key_origin.empty()) {
        out << "  (no API key found: no authentication header)\n";
    }
    out << fmt::format("  body: {} bytes, {} model {}, {}{} prompt tokens{}\n",
                       group_count(r.body_bytes), r.api, r.model, r.tokens_exact ? "" : "about ",
                       group_digits(r.prompt_tokens),
                       r.tokens_exact ? " (counted with the model's tokenizer)" : "");
    if (r.breakpoints.empty()) {
        out << "  breakpoints: none\n";
    }
    for (const auto& bp : r.breakpoints) {
        out << fmt::format("  breakpoint {}{} ({}): {}{} tokens up to it\n", bp.path,
                           bp.automatic ? " (automatic)" : "", bp.ttl,
                           r.tokens_exact ? "" : "about ", group_digits(bp.tokens));
    }
    if (!r.unfilled.empty()) {
        std::string names;
        for (const auto& u : r.unfilled) {
            names += (names.empty() ? "" : ", ") + ("{{" + u + "}}");
        }
        out << fmt::format("  sent as written (no --var): {}\n", names);
    }
}

} // namespace

void
print_probe(const live::ProbeResult& r, std::ostream& out)
{
    out << fmt::format("cachewise probe: {} · {} to {} ({})\n", safe_text(r.file),
                       count_noun(r.times, "call"), r.provider, r.model);
    print_plan(r, out);
    if (!r.sent) {
        for (std::size_t i = 0; i < r.predicted.size(); ++i) {
            out << fmt::format("  predicted call {}: {}\n", i + 1, split_text(r.predicted[i]));
        }
        const std::string output =
            !r.output_priced        ? "input only: the output the body allows is not known"
            : *r.output_priced == 1 ? "input, and 1 output token each unless --keep-max-tokens"
                                    : fmt::format("input, and at most {} output tokens each: the "
                                                  "body's own limit, so an upper bound",
                                                  group_digits(*r.output_priced));
        out << fmt::format("estimated cost: {} for {} ({})\n",
                           r.estimated_cost_usd ? format_usd(*r.estimated_cost_usd) + " USD"
                                                : std::string("unknown (model not priced)"),
                           count_noun(r.times, "call"), output);
        out << "dry run: nothing was sent; add --yes to send\n";
        return;
    }
    out << "\ncalls\n";
    for (std::size_t i = 0; i < r.calls.size(); ++i) {
        const auto& c = r.calls[i];
        out << fmt::format("  {}  HTTP {}  ttft {:.3f} s  {}  {}\n", c.n, c.status, c.ttft_seconds,
                           c.usage ? split_text(*c.usage) : std::string("no usage reported"),
                           c.cost_usd ? format_usd(*c.cost_usd) + " USD" : "unpriced");
        if (i < r.predicted.size()) {
            out << fmt::format("     predicted        {}{}\n", split_text(r.predicted[i]),
                               c.usage && c.usage->read == r.predicted[i].read &&
                                       c.usage->write() == r.predicted[i].write()
                                   ? "  = reported"
                                   : "");
        }
        for (const auto& why : c.retried) {
            out << fmt::format("     retried: {}\n", why);
        }
        if (const auto text = miss_reason_text(c); !text.empty()) {
            out << "     " << text << "\n";
        }
    }
    for (const auto& f : r.findings) {
        out << fmt::format("{} {} {}: {}\n", analysis::to_string(f.severity), f.rule, f.name,
                           f.message);
    }
    for (const auto& note : r.notes) {
        out << "note: " << note << "\n";
    }
    out << fmt::format("{} · {} · {}\n", count_noun(r.calls.size(), "call"),
                       count_noun(r.connections, "connection"),
                       count_noun(r.findings.size(), "finding"));
}

Json
probe_to_json(const live::ProbeResult& r)
{
    Json j = json_document("probe");
    j["provider"] = r.provider;
    j["model"] = r.model;
    j["dry_run"] = !r.sent;
    Json headers = Json::object();
    for (const auto& [name, value] : r.headers) {
        headers[name] = value;
    }
    Json bps = Json::array();
    for (const auto& bp : r.breakpoints) {
        bps.push_back({{"path", bp.path},
                       {"tokens", bp.tokens},
                       {"ttl", bp.ttl},
                       {"automatic", bp.automatic}});
    }
    j["request"] = {{"method", r.method},
                    {"url", safe_text(r.url)},
                    {"headers", headers},
                    {"body_bytes", r.body_bytes},
                    {"api", r.api},
                    {"prompt_tokens_estimate", r.prompt_tokens},
                    {"prompt_tokens_source", r.tokens_exact ? "exact" : "estimated"},
                    {"breakpoints", bps},
                    {"unfilled_placeholders", r.unfilled}};
    j["estimated_cost_usd"] = r.estimated_cost_usd ? Json(*r.estimated_cost_usd) : Json();
    j["output_tokens_priced_per_call"] = r.output_priced ? Json(*r.output_priced) : Json();
    Json calls = Json::array();
    for (const auto& c : r.calls) {
        Json call{{"n", c.n},
                  {"status", c.status},
                  {"attempts", c.attempts},
                  {"ttft_seconds", c.ttft_seconds},
                  {"usage", c.usage ? split_json(*c.usage) : Json()},
                  {"cost_usd", c.cost_usd ? Json(*c.cost_usd) : Json()}};
        call["diagnostics"] =
            c.cache_miss_reason
                ? Json{{"cache_miss_reason",
                        c.cache_miss_reason->empty() ? Json() : Json(*c.cache_miss_reason)}}
                : Json();
        calls.push_back(std::move(call));
    }
    j["calls"] = calls;
    j["predicted"] = json_array(r.predicted, split_json);
    j["findings"] = json_array(r.findings, finding_to_json);
    j["notes"] = r.notes;
    return j;
}

void
print_probe(const live::ProbeResult& result, Format format, std::ostream& out)
{
    if (format == Format::json) {
        out << probe_to_json(result).dump(2, ' ', false,
                                          nlohmann::ordered_json::error_handler_t::replace)
            << "\n";
    } else {
        print_probe(result, out);
    }
}

} // namespace cachewise::report
