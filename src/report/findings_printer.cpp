#include "report/findings_printer.hpp"

#include "analysis/rule_catalogue.hpp"
#include "util/enum_names.hpp"
#include "util/escape.hpp"
#include "util/format.hpp"
#include "util/hash.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <array>
#include <filesystem>
#include <map>
#include <set>

#ifndef CACHEWISE_VERSION
#define CACHEWISE_VERSION "unknown"
#endif

namespace cachewise::report {

using analysis::Finding;
using analysis::Severity;
using Json = nlohmann::ordered_json;

namespace {

// SARIF 2.1.0 §3.27.10 result.level.
constexpr auto k_sarif_levels = util::names_of<Severity>({"note", "warning", "error"});

std::string_view
sarif_level(Severity s)
{
    return k_sarif_levels[s];
}

// `file` as GitHub wants it in an annotation: relative to the checkout.
std::string
relative_to(const std::string& file, const std::string& base)
{
    namespace fs = std::filesystem;
    if (base.empty() || file == "-") {
        return file;
    }
    std::error_code ec;
    const fs::path absolute = fs::absolute(file, ec);
    if (ec) {
        return file;
    }
    const fs::path relative =
        absolute.lexically_normal().lexically_relative(fs::path(base).lexically_normal());
    if (relative.empty() || *relative.begin() == "..") {
        return file; // outside the checkout: GitHub cannot place it anyway
    }
    return relative.string();
}

// Workflow-command escaping: data needs %, CR, LF; properties also : and ,.
std::string
escape(std::string_view text, bool property)
{
    // Data's three first, then the two a property adds.
    static constexpr ByteEscape k_property[] = {
        {'%', "%25"}, {'\r', "%0D"}, {'\n', "%0A"}, {':', "%3A"}, {',', "%2C"}};
    constexpr std::size_t k_data = 3;
    const std::span<const ByteEscape> escapes(k_property,
                                              property ? std::size(k_property) : k_data);
    return escape_bytes(text, escapes, [](std::string& out, char c) { out.push_back(c); });
}

} // namespace

namespace {

std::string
fingerprint_of(const Finding& f, bool by_value)
{
    // The marked part of an excerpt (the value, the change), not the text
    // around it: a placeholder added beside {{locale}} is not a new finding
    // about {{locale}}.
    const auto marked = [](const std::string& s) {
        const auto open = s.find("\u00ab");
        const auto close = open == std::string::npos ? open : s.find("\u00bb", open);
        return close == std::string::npos ? s : s.substr(open, close - open);
    };
    // Without its value, a dynamic field is a change between two requests
    // (it has a partner) or a value that stands at risk.
    const std::string excerpt = !f.excerpt ? ""
                                : by_value
                                    ? marked(f.excerpt->was) + "\x1f" + marked(f.excerpt->now)
                                : f.partner.empty() ? "standing"
                                                    : "changed";
    // A template's findings are its own; a log's (they have a stream) are the
    // same in tomorrow's rotated or renamed log.
    const std::string_view file = f.stream.empty() ? std::string_view(f.file) : "";
    return hash_bytes(fmt::format("{}\x1f{}\x1f{}\x1f{}\x1f{}", f.rule, file, f.location.path,
                                  f.kind, excerpt))
        .short_hex(16);
}

} // namespace

std::string
fingerprint(const Finding& f)
{
    // A dynamic field's (CW010) marked part in a log is its value, new on
    // every run by nature: its path and kind (timestamp, date, ...) name it.
    // A template's is its placeholder or literal, which names it.
    return fingerprint_of(f, f.rule != analysis::rule::k_dynamic_field || f.stream.empty());
}

std::string
value_fingerprint(const Finding& f)
{
    return fingerprint_of(f, true);
}

namespace {

// A log's finding with no text of its own (CW031: a request's usage against
// the simulation) is a fact about its request: two of them in one file are
// two alerts, which code scanning merges when their fingerprints are equal.
bool
about_its_request(const Finding& f)
{
    return !f.stream.empty() && !f.excerpt && !f.request.empty();
}

std::string
sarif_fingerprint(const Finding& f)
{
    return about_its_request(f) ? hash_bytes(fingerprint(f) + "\x1f" + f.request).short_hex(16)
                                : fingerprint(f);
}

} // namespace

void
print_sarif(const std::vector<Finding>& findings, std::ostream& out)
{
    const auto& catalogue = analysis::rule_catalogue();
    Json rules = Json::array();
    for (const auto& r : catalogue) {
        rules.push_back(
            {{"id", std::string(r.id)},
             {"name", std::string(r.name)},
             {"shortDescription", {{"text", std::string(r.summary)}}},
             {"fullDescription", {{"text", fmt::format("{}. Fix: {}.", r.summary, r.fix)}}},
             {"help", {{"text", std::string(r.fix)}}},
             {"defaultConfiguration", {{"level", std::string(sarif_level(r.severity))}}}});
    }
    Json results = Json::array();
    for (const auto& f : findings) {
        std::size_t index = 0;
        for (std::size_t i = 0; i < catalogue.size(); ++i) {
            if (catalogue[i].id == f.rule) {
                index = i;
            }
        }
        Json location;
        Json physical = {
            {"artifactLocation", {{"uri", f.file.empty() ? std::string("-") : uri_path(f.file)}}}};
        if (f.line > 0) {
            Json region = {{"startLine", f.line}};
            if (f.column > 0) {
                region["startColumn"] = f.column;
            }
            physical["region"] = region;
        }
        location["physicalLocation"] = physical;
        if (!f.location.path.empty()) {
            location["logicalLocations"] =
                Json::array({{{"fullyQualifiedName", f.location.path}, {"kind", "member"}}});
        }
        Json result = {{"ruleId", f.rule},
                       {"ruleIndex", index},
                       {"level", std::string(sarif_level(f.severity))},
                       {"message", {{"text", f.message}}},
                       {"locations", Json::array({location})},
                       {"partialFingerprints", {{"cachewiseFinding/v1", sarif_fingerprint(f)}}}};
        Json properties = {{"request", f.request}, {"tokens_lost", f.tokens_lost}};
        if (f.occurrences > 1) {
            properties["occurrences"] = f.occurrences;
        }
        if (!f.kind.empty()) {
            properties["kind"] = f.kind;
        }
        if (f.cost_usd) {
            properties["cost_usd"] = *f.cost_usd;
        }
        result["properties"] = properties;
        results.push_back(std::move(result));
    }
    const Json sarif = {
        {"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
        {"version", "2.1.0"},
        {"runs", Json::array({{{"tool",
                                {{"driver",
                                  {{"name", "cachewise"},
                                   {"version", CACHEWISE_VERSION},
                                   {"informationUri", "https://github.com/cachewise/cachewise"},
                                   {"rules", rules}}}}},
                               {"results", results}}})}};
    out << sarif.dump(2, ' ', false, Json::error_handler_t::replace) << "\n";
}

void
print_github(const std::vector<Finding>& findings, std::ostream& out, const std::string& base,
             std::size_t known)
{
    // Lines that hold findings of several requests (a trajectory is one
    // document of many): their annotations say which request.
    std::map<std::pair<std::string, std::uint64_t>, std::string> request_at;
    std::set<std::pair<std::string, std::uint64_t>> shared_lines;
    for (const auto& f : findings) {
        const auto [it, added] = request_at.try_emplace({f.file, f.line}, f.request);
        if (!added && it->second != f.request) {
            shared_lines.insert(it->first);
        }
    }
    for (const auto& f : findings) {
        const std::string_view command = f.severity == Severity::error     ? "error"
                                         : f.severity == Severity::warning ? "warning"
                                                                           : "notice";
        std::string properties;
        if (!f.file.empty()) {
            properties += fmt::format("file={}", escape(relative_to(f.file, base), true));
            if (f.line > 0) {
                properties += fmt::format(",line={}", f.line);
            }
            if (f.column > 0) {
                properties += fmt::format(",col={}", f.column);
            }
            properties += ",";
        }
        properties += fmt::format("title={}", escape(fmt::format("{} {}", f.rule, f.name), true));
        // Which request, where its line does not say (a trajectory is one
        // document of many requests).
        std::string request;
        if (shared_lines.contains({f.file, f.line})) {
            const bool in_file = !f.file.empty() && f.request.rfind(f.file, 0) == 0;
            request = fmt::format("request {} · ", in_file ? f.request.substr(f.file.size())
                                                           : relative_to(f.request, base));
        }
        out << "::" << command << " " << properties << "::"
            << escape(
                   fmt::format("{}{}: {}{}", request, f.location.path, f.message,
                               f.occurrences > 1 ? " [×" + group_count(f.occurrences) + "]" : ""),
                   false)
            << "\n";
    }
    // A last plain log line (no workflow command), so that a clean run says
    // so rather than printing nothing.
    std::array<std::size_t, 3> by_severity{}; // error, warning, notice
    for (const auto& f : findings) {
        ++by_severity[f.severity == Severity::error ? 0 : f.severity == Severity::warning ? 1 : 2];
    }
    // "new" only where a baseline held some back.
    const std::string_view noun = known > 0 ? "new finding" : "finding";
    out << (findings.empty()
                ? fmt::format("cachewise: no {}s", noun)
                : fmt::format("cachewise: {} ({}, {}, {})", count_noun(findings.size(), noun),
                              count_noun(by_severity[0], "error"),
                              count_noun(by_severity[1], "warning"),
                              count_noun(by_severity[2], "notice")))
        << (known > 0 ? fmt::format("; {} known from --baseline, not annotated", group_count(known))
                      : "")
        << "\n";
}

} // namespace cachewise::report
