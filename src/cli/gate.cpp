#include "cli/gate.hpp"

#include "analysis/rule_catalogue.hpp"
#include "report/findings_printer.hpp"
#include "report/request_json.hpp"
#include "util/error.hpp"
#include "util/file.hpp"
#include "util/format.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

namespace cachewise::cli {

using analysis::Finding;
using analysis::Severity;

namespace {

// A member of a baseline finding that must be a string (or, when `nullable`,
// null or absent).
std::string
string_at(const nlohmann::json& object, const char* key, const std::string& path, bool nullable)
{
    const auto it = object.find(key);
    if (it == object.end() || (nullable && it->is_null())) {
        if (nullable) {
            return {};
        }
        throw Error(fmt::format("{}.{}: missing (a string is expected)", path, key));
    }
    if (!it->is_string()) {
        throw Error(fmt::format("{}.{}: expected a string{}, found {}", path, key,
                                nullable ? " or null" : "", it->type_name()));
    }
    return it->get<std::string>();
}

// The findings of a baseline, checked like a log: a member of the wrong type
// is an input error that names its path.
std::vector<Finding>
baseline_findings(const nlohmann::json& baseline, const std::string& file)
{
    std::vector<Finding> out;
    const auto list = baseline.find("findings");
    const std::string where = fmt::format("--baseline {}: findings", file);
    if (list == baseline.end()) {
        // Every result has the list: without it each finding would count as new.
        throw Error(fmt::format("{}: missing (every cachewise --format json result has the "
                                "list, empty or not)",
                                where));
    }
    if (!list->is_array()) {
        throw Error(fmt::format("{}: expected an array, found {}", where, list->type_name()));
    }
    for (std::size_t i = 0; i < list->size(); ++i) {
        const auto& j = (*list)[i];
        const std::string path = fmt::format("{}[{}]", where, i);
        if (!j.is_object()) {
            throw Error(
                fmt::format("{}: expected a finding object, found {}", path, j.type_name()));
        }
        Finding f;
        f.rule = string_at(j, "rule", path, false);
        f.file = string_at(j, "file", path, true);
        f.stream =
            string_at(j, "stream", path, true); // a log's finding: its file is not its identity
        f.kind = string_at(j, "kind", path, true);
        f.partner = string_at(j, "partner", path, true); // a change, or a value at risk
        if (const auto n = j.find("occurrences"); n != j.end()) {
            if (!n->is_number_unsigned() || n->get<std::uint64_t>() == 0) {
                throw Error(fmt::format("{}.occurrences: expected a count of 1 or more", path));
            }
            f.occurrences = n->get<std::size_t>();
        }
        if (const auto loc = j.find("location"); loc != j.end() && !loc->is_null()) {
            if (!loc->is_object()) {
                throw Error(fmt::format("{}.location: expected an object, found {}", path,
                                        loc->type_name()));
            }
            f.location.path = string_at(*loc, "path", path + ".location", true);
        }
        if (const auto ex = j.find("excerpt"); ex != j.end() && !ex->is_null()) {
            if (!ex->is_object()) {
                throw Error(fmt::format("{}.excerpt: expected an object or null, found {}", path,
                                        ex->type_name()));
            }
            f.excerpt = analysis::Excerpt{string_at(*ex, "was", path + ".excerpt", true),
                                          string_at(*ex, "now", path + ".excerpt", true)};
        }
        out.push_back(std::move(f));
    }
    return out;
}

// The items of a comma-separated list, trimmed, empty ones dropped; a rule
// id in any case is written as the rules name it ("cw010" is CW010).
std::vector<std::string>
split(const std::string& text)
{
    std::vector<std::string> out;
    std::stringstream ss(text);
    std::string item;
    while (std::getline(ss, item, ',')) {
        const auto begin = item.find_first_not_of(" \t");
        if (begin == std::string::npos) {
            continue;
        }
        out.push_back(analysis::canonical_rule_id(
            item.substr(begin, item.find_last_not_of(" \t") - begin + 1)));
    }
    return out;
}

FailOn::Level
severity_level(Severity s)
{
    return s == Severity::error     ? FailOn::Level::error
           : s == Severity::warning ? FailOn::Level::warning
                                    : FailOn::Level::info;
}

int
rank(FailOn::Level level)
{
    return level == FailOn::Level::error ? 3 : level == FailOn::Level::warning ? 2 : 1;
}

} // namespace

Expected<FailOn>
FailOn::parse(std::string_view text)
{
    FailOn f;
    f.text = std::string(text);
    for (const auto level : {Level::none, Level::info, Level::warning, Level::error}) {
        static constexpr std::string_view k_names[] = {"none", "info", "warning", "error"};
        if (text == k_names[static_cast<int>(level)]) {
            f.level = level;
            return f;
        }
    }
    f.level = Level::ids;
    f.ids = split(f.text);
    f.text = fmt::format("{}", fmt::join(f.ids, ","));
    for (const auto& id : f.ids) {
        static constexpr std::string_view k_levels[] = {"none", "info", "warning", "error"};
        if (std::find(std::begin(k_levels), std::end(k_levels), id) != std::end(k_levels)) {
            return unexpected(fmt::format("\"{}\": one level (error, warning, info, none) or a "
                                          "list of rule ids (\"{}\" is a level)",
                                          text, id));
        }
        try {
            analysis::rule_info(id);
        } catch (const std::out_of_range&) {
            return unexpected(fmt::format(
                "\"{}\" is neither a level (error, warning, info, none) nor a rule id", id));
        }
    }
    if (f.ids.empty()) {
        return unexpected(fmt::format(
            "\"{}\" is neither a level (error, warning, info, none) nor a rule id", text));
    }
    return f;
}

Baseline
read_baseline(const std::string& path, std::string_view command)
{
    const auto text = read_file(path);
    if (!text) {
        throw Error(fmt::format("--baseline {}", text.error()));
    }
    const auto j = nlohmann::json::parse(*text, nullptr, false);
    const auto expected_what = [&] {
        return command.empty() ? std::string()
                               : fmt::format(" (expected the output of `cachewise {} --format "
                                             "json`)",
                                             command);
    };
    const bool has_command = j.is_object() && j.contains("command") && j["command"].is_string();
    if (j.is_discarded() || !j.is_object() || (!command.empty() && !has_command)) {
        throw Error(fmt::format("--baseline {}: not a cachewise --format json result{}", path,
                                expected_what()));
    }
    Baseline b;
    b.path = path;
    b.command = has_command ? j["command"].get<std::string>() : std::string();
    if (!command.empty() && b.command != command) {
        throw Error(fmt::format("--baseline {}: a result of `{}`; `{}` needs a result of "
                                "`cachewise {} --format json`",
                                path, b.command, command, command));
    }
    // A result of a later cachewise may mean other things by the same names.
    if (const auto version = j.find("schema_version");
        version != j.end() && (!version->is_number_integer() || *version < 1 ||
                               *version > report::json_schema_version(b.command))) {
        throw Error(fmt::format("--baseline {}: schema_version {}: this cachewise reads 1 to {}",
                                path, version->dump(), report::json_schema_version(b.command)));
    }
    b.findings = baseline_findings(j, path);
    if (j.contains("totals") && j["totals"].is_object() && j["totals"].contains("hit_rate")) {
        const auto& rate = j["totals"]["hit_rate"];
        if (!rate.is_number() && !rate.is_null()) {
            throw Error(fmt::format("--baseline {}: totals.hit_rate: expected a number, found {}",
                                    path, rate.type_name()));
        }
        if (rate.is_number()) {
            b.hit_rate = rate.get<double>();
        }
    }
    return b;
}

void
check_regression_gate(const Gate& gate)
{
    if (gate.max_regression && gate.baseline != nullptr && !gate.baseline->hit_rate) {
        throw Error(fmt::format(
            "--baseline {}: has no totals.hit_rate (an audit --format json result of a "
            "log with reported usage is needed for --max-regression; it is null when no "
            "request reported usage)",
            gate.baseline->path));
    }
}

std::vector<Finding>
new_findings(const std::vector<Finding>& findings, const Gate& gate)
{
    if (gate.baseline == nullptr) {
        return findings;
    }
    // Each finding uses up the baseline's occurrences of its fingerprint: a
    // folded finding ([×N]) that holds more requests than the baseline's, or
    // one more finding alike (a dynamic field that changed once more), grew:
    // new requests repeat it, so it counts as new. Findings of the very same
    // value use theirs up first, so the new one is the one with a new value.
    std::map<std::string, std::size_t> known;       // fingerprint -> occurrences left
    std::map<std::string, std::size_t> known_value; // value_fingerprint -> occurrences left
    for (const auto& f : gate.baseline->findings) {
        known[report::fingerprint(f)] += f.occurrences;
        known_value[report::value_fingerprint(f)] += f.occurrences;
    }
    const auto use = [](std::map<std::string, std::size_t>& left, const std::string& key,
                        std::size_t n) {
        const auto it = left.find(key);
        if (it == left.end() || n > it->second) {
            return false;
        }
        it->second -= n;
        return true;
    };
    std::vector<bool> matched(findings.size(), false);
    for (std::size_t i = 0; i < findings.size(); ++i) {
        const auto& f = findings[i];
        if (use(known_value, report::value_fingerprint(f), f.occurrences)) {
            matched[i] = use(known, report::fingerprint(f), f.occurrences);
        }
    }
    std::vector<Finding> out;
    for (std::size_t i = 0; i < findings.size(); ++i) {
        const auto& f = findings[i];
        if (!matched[i] && !use(known, report::fingerprint(f), f.occurrences)) {
            out.push_back(f);
        }
    }
    return out;
}

std::optional<std::string>
regression_message(const Gate& gate, std::optional<double> hit_rate)
{
    if (!gate.max_regression || gate.baseline == nullptr || !hit_rate) {
        return std::nullopt;
    }
    check_regression_gate(gate);
    const double before = *gate.baseline->hit_rate;
    const double drop = (before - *hit_rate) * 100.0;
    if (drop <= *gate.max_regression) {
        return std::nullopt;
    }
    return fmt::format("the token-weighted hit rate fell {:.1f} points ({} → {}), more than "
                       "--max-regression {}",
                       drop, format_percent(before), format_percent(*hit_rate),
                       *gate.max_regression);
}

int
gate_status(const std::vector<Finding>& counted, const Gate& gate, std::optional<double> hit_rate)
{
    int status = 0;
    const auto& fail_on = gate.fail_on;
    if (fail_on.level != FailOn::Level::none) {
        const int threshold = rank(fail_on.level);
        std::size_t failing = 0;
        for (const auto& f : counted) {
            const bool hit =
                fail_on.level == FailOn::Level::ids
                    ? std::find(fail_on.ids.begin(), fail_on.ids.end(), f.rule) != fail_on.ids.end()
                    : rank(severity_level(f.severity)) >= threshold;
            failing += hit ? 1 : 0;
        }
        if (failing > 0) {
            fmt::print(stderr, "cachewise: {} {} --fail-on {}{}\n", count_noun(failing, "finding"),
                       fail_on.level == FailOn::Level::ids ? "with a rule of" : "at or above",
                       fail_on.text, gate.baseline != nullptr ? " (new since the baseline)" : "");
            status = 1;
        }
    }
    if (const auto regression = regression_message(gate, hit_rate)) {
        fmt::print(stderr, "cachewise: {}\n", *regression);
        status = 1;
    }
    return status;
}

} // namespace cachewise::cli
