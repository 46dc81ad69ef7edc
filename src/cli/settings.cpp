#include "cli/settings.hpp"

#include "advise/lint.hpp"
#include "analysis/rule_catalogue.hpp"
#include "cli/project_config.hpp"
#include "cli/validators.hpp"
#include "util/error.hpp"
#include "util/time.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <re2/re2.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <unistd.h>

namespace cachewise::cli {

namespace fs = std::filesystem;

namespace {

// The value as text (a flag, an environment variable, a JSON string).
const std::string&
text_of(const RawValue& value)
{
    return std::get<std::string>(value);
}

// A list key's values; one string (a flag given once) is a list of one.
std::vector<std::string>
list_of(const RawValue& value)
{
    if (const auto* one = std::get_if<std::string>(&value)) {
        return {*one};
    }
    return std::get<std::vector<std::string>>(value);
}

// A number from JSON, or from a flag's text.
std::optional<double>
number_of(const RawValue& value)
{
    if (const auto* n = std::get_if<double>(&value)) {
        return *n;
    }
    // Plain decimal notation only: strtod would also take " 2", "+3", "0x4"
    // and "1e1", which no one means as a count or a number of seconds.
    const std::string& text = text_of(value);
    double n = 0;
    const char* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, n, std::chars_format::fixed);
    if (text.empty() || ec != std::errc() || ptr != end || !std::isfinite(n)) {
        return std::nullopt;
    }
    return n;
}

// A list key: the command line adds to the config's list when the key
// appends, and replaces it otherwise.
void
store_list(Setting<std::vector<std::string>>& setting, std::vector<std::string> values,
           Origin origin, bool appends)
{
    if (appends && origin == Origin::command_line) {
        setting.value.insert(setting.value.end(), values.begin(), values.end());
    } else {
        setting.value = std::move(values);
    }
    setting.origin = origin;
}

// Files named by a setting are opened when the rules load, after the
// checks: a missing one is said here, by the setting's name.
std::string
unreadable(const std::vector<std::string>& files)
{
    for (const auto& file : files) {
        std::error_code ec;
        if (!fs::is_regular_file(file, ec) || ::access(file.c_str(), R_OK) != 0) {
            return fmt::format("{}: cannot be read", file);
        }
    }
    return {};
}

std::string
check_directory(const std::string& dir)
{
    std::error_code ec;
    return fs::is_directory(dir, ec) ? std::string() : fmt::format("{}: no such directory", dir);
}

std::string
check_rules(Settings& s, const RawValue& value, Origin origin)
{
    if (auto reason = check_directory(text_of(value)); !reason.empty()) {
        return reason;
    }
    s.rules_dir = {text_of(value), origin};
    return {};
}

std::string
check_tokenizer_dir(Settings& s, const RawValue& value, Origin origin)
{
    if (auto reason = check_directory(text_of(value)); !reason.empty()) {
        return reason;
    }
    s.tokenizer_dir = {text_of(value), origin};
    return {};
}

// on or off (and the words a config file or a shell may use for them).
std::string
check_tokenize(Settings& s, const RawValue& value, Origin origin)
{
    const std::string& text = text_of(value);
    if (text == "on" || text == "true" || text == "yes" || text == "1") {
        s.tokenize = {true, origin};
    } else if (text == "off" || text == "false" || text == "no" || text == "0") {
        s.tokenize = {false, origin};
    } else {
        return fmt::format("expected on or off, not \"{}\"", text);
    }
    return {};
}

std::string
check_github_workspace(Settings& s, const RawValue& value, Origin origin)
{
    s.github_workspace = {text_of(value), origin};
    return {};
}

std::string
check_prices(Settings& s, const RawValue& value, Origin origin)
{
    auto files = list_of(value);
    if (auto reason = unreadable(files); !reason.empty()) {
        return reason;
    }
    store_list(s.price_files, std::move(files), origin, true);
    return {};
}

std::string
check_input_format(Settings& s, const RawValue& value, Origin origin)
{
    const auto f = ingest::parse_input_format(text_of(value));
    if (!f) {
        return fmt::format("unknown format \"{}\" (expected auto, request, exchange, sse, "
                           "claude-code or vcr)",
                           text_of(value));
    }
    s.input_format = {*f, origin};
    return {};
}

std::string
check_format(Settings& s, const RawValue& value, Origin origin)
{
    const auto f = report::parse_format(text_of(value));
    if (!f) {
        return fmt::format("unknown format \"{}\" (expected {})", text_of(value),
                           in_words(report::format_names()));
    }
    s.format = {*f, origin};
    return {};
}

std::string
check_model(Settings& s, const RawValue& value, Origin origin)
{
    s.model = {text_of(value), origin};
    return {};
}

std::string
check_fail_on(Settings& s, const RawValue& value, Origin origin)
{
    auto parsed = FailOn::parse(text_of(value));
    if (!parsed) {
        return parsed.error();
    }
    s.fail_on = {std::move(parsed).value(), origin};
    return {};
}

std::string
check_placeholders(Settings& s, const RawValue& value, Origin origin)
{
    auto patterns = list_of(value);
    for (const auto& pattern : patterns) {
        const re2::RE2 compiled(pattern, re2::RE2::Quiet);
        if (!compiled.ok()) {
            return fmt::format("pattern \"{}\": {}", pattern, compiled.error());
        }
    }
    store_list(s.placeholders, std::move(patterns), origin, false);
    return {};
}

std::string
check_dynamic_fields(Settings& s, const RawValue& value, Origin origin)
{
    auto files = list_of(value);
    if (origin == Origin::config_file && s.config_file) {
        for (auto& file : files) {
            if (fs::path(file).is_relative()) {
                file = (s.config_file->parent_path() / file).string(); // beside the config
            }
        }
    }
    if (auto reason = unreadable(files); !reason.empty()) {
        return reason;
    }
    store_list(s.dynamic_fields, std::move(files), origin, true);
    return {};
}

std::string
check_disabled_rules(Settings& s, const RawValue& value, Origin origin)
{
    auto ids = list_of(value);
    for (auto& id : ids) {
        id = analysis::canonical_rule_id(std::move(id)); // as --fail-on takes them
        try {
            analysis::rule_info(id);
        } catch (const std::out_of_range&) {
            return fmt::format("\"{}\" is not a rule id (man cachewise, RULE IDS)", id);
        }
    }
    store_list(s.disabled_rules, std::move(ids), origin, true);
    return {};
}

std::string
check_window(Settings& s, const RawValue& value, Origin origin)
{
    const auto seconds = parse_duration(text_of(value));
    if (!seconds) {
        return seconds.error();
    }
    // A partner must be earlier than its request: a zero window has none.
    if (*seconds <= 0) {
        return "must be longer than 0";
    }
    s.window = {{text_of(value), *seconds}, origin};
    return {};
}

std::string
check_points(Settings& s, const RawValue& value, Origin origin)
{
    const auto n = number_of(value);
    if (!n) {
        return fmt::format("expected a number of points, not \"{}\"", text_of(value));
    }
    if (*n < 0 || *n > 100) {
        return fmt::format("expected 0 to 100 percentage points (got {})", *n);
    }
    s.max_regression = {*n + 0.0, origin}; // "-0" is 0
    return {};
}

// --jobs: a whole number of threads, 1 to 1024 (1 reads on one thread).
std::string
check_jobs(Settings& s, const RawValue& value, Origin origin)
{
    const auto n = number_of(value);
    if (!n || *n < 1 || *n > 1024 || *n != static_cast<double>(static_cast<unsigned>(*n))) {
        return fmt::format("expected a number of threads from 1 to 1024, got \"{}\"",
                           text_of(value));
    }
    s.jobs = {static_cast<unsigned>(*n), origin};
    return {};
}

std::string
check_latency(Settings& s, const RawValue& value, Origin origin)
{
    const auto n = number_of(value);
    if (!n) {
        return fmt::format("expected a number of seconds, not \"{}\"", text_of(value));
    }
    if (*n < 0) {
        return "must not be negative";
    }
    s.latency = {*n, origin};
    return {};
}

std::string
check_baseline(Settings& s, const RawValue& value, Origin origin)
{
    // A gate compares a result with one of its own command: lint, analyze
    // and audit say so before the run; read once, here.
    const bool gated = s.command == "lint" || s.command == "analyze" || s.command == "audit";
    s.baseline = {read_baseline(text_of(value), gated ? s.command : ""), origin};
    return {};
}

const std::vector<KeyInfo> k_key_table = {
    {.key = Key::rules,
     .name = "rules",
     .flag = "--rules",
     .env = "CACHEWISE_RULES",
     .type = ValueType::string,
     .type_name = "DIR",
     .default_text = "(built-in)",
     .check = check_rules,
     .help = "Directory of rules files replacing the built-in ones (also $CACHEWISE_RULES)"},
    {.key = Key::input_format,
     .name = "input_format",
     .flag = "--input-format",
     .type = ValueType::string,
     .type_name = "FORMAT",
     .default_text = "auto",
     .check = check_input_format,
     .help = "Input format: auto, request, exchange, sse, claude-code, vcr (default auto)"},
    {.key = Key::format,
     .name = "format",
     .flag = "--format",
     .type = ValueType::string,
     .type_name = "FORMAT",
     .default_text = "text",
     .check = check_format,
     .help = "" /* format_help(), made from the list of formats */},
    {.key = Key::model,
     .name = "model",
     .flag = "--model",
     .type = ValueType::string,
     .in_config_file = true,
     .type_name = "MODEL",
     .default_text = "(the request's own)",
     .check = check_model,
     .help = "Treat the requests as this model"},
    {.key = Key::fail_on,
     .name = "fail_on",
     .flag = "--fail-on",
     .type = ValueType::string,
     .in_config_file = true,
     .type_name = "LEVEL|IDS",
     .default_text = "error for lint, none for analyze, audit and probe",
     .check = check_fail_on,
     .help =
         "Exit 1 on findings at or above a level (error, warning, info, none) or with these rule "
         "ids (CW010,CW012)"},
    {.key = Key::placeholders,
     .name = "placeholders",
     .flag = "--placeholder",
     .type = ValueType::string_list,
     .in_config_file = true,
     .type_name = "PATTERN",
     .default_text = "{{name}}, ${name}, {name}",
     .check = check_placeholders,
     .help = "An RE2 pattern of template placeholders (repeatable; default {{name}}, ${name}, "
             "{name})"},
    {.key = Key::dynamic_fields,
     .name = "dynamic_fields",
     .flag = "--dynamic-fields",
     .type = ValueType::string_list,
     .in_config_file = true,
     .appends = true,
     .type_name = "FILE",
     .default_text = "(none)",
     .check = check_dynamic_fields,
     .help = "A file of extra dynamic-field patterns (format of rules/dynamic-fields.json); repeat "
             "the option for more files"},
    {.key = Key::disabled_rules,
     .name = "disabled_rules",
     .flag = "--disable",
     .type = ValueType::string_list,
     .in_config_file = true,
     .appends = true,
     .type_name = "ID",
     .default_text = "(none)",
     .check = check_disabled_rules,
     .help = "A rule id not to report (repeatable)"},
    {.key = Key::window,
     .name = "window",
     .flag = "--window",
     .type = ValueType::string,
     .in_config_file = true,
     .type_name = "DURATION",
     .default_text = "1h",
     .check = check_window,
     .help = "How far back a partner may be: 90s, 30m, 1h, 1h30m (default 1h)"},
    {.key = Key::max_regression,
     .name = "max_regression",
     .flag = "--max-regression",
     .type = ValueType::number,
     .in_config_file = true,
     .type_name = "POINTS",
     .default_text = "(not checked)",
     .check = check_points,
     .help = "With --baseline: exit 1 when audit's token-weighted hit rate falls more than this "
             "many points"},
    {.key = Key::latency,
     .name = "latency",
     .flag = "--latency",
     .type = ValueType::number,
     .in_config_file = true,
     .type_name = "SECONDS",
     .default_text = "2",
     .check = check_latency,
     .help = "Seconds after its start when a request's cache entry becomes visible, when the log "
             "has no first_token_at (default 2)"},
    {.key = Key::baseline,
     .name = "baseline",
     .flag = "--baseline",
     .type = ValueType::string,
     .type_name = "FILE",
     .default_text = "(none)",
     .check = check_baseline,
     .help = "A previous --format json result: only new findings count (and, for audit, the "
             "hit-rate drop)"},
    {.key = Key::prices,
     .name = "prices",
     .flag = "--prices",
     .type = ValueType::string_list,
     .appends = true,
     .type_name = "FILE",
     .default_text = "(none)",
     .check = check_prices,
     .help = "A price file (format of rules/pricing.json) laid over the built-in prices: its "
             "models replace the ones they match; repeatable"},
    {.key = Key::tokenize,
     .name = "tokenize",
     .flag = "--tokenize",
     .env = "CACHEWISE_TOKENIZE",
     .type = ValueType::string,
     .in_config_file = true,
     .type_name = "on|off",
     .default_text = "on",
     .check = check_tokenize,
     .help = "Count OpenAI, DeepSeek and open-model requests with the model's own tokenizer "
             "where it is available (rules/tokenizers/, offline): on by default; --tokenize=off "
             "or --no-tokenize keeps the estimates"},
    {.key = Key::tokenizer_dir,
     .name = "tokenizer_dir",
     .flag = "--tokenizer-dir",
     .type = ValueType::string,
     .type_name = "DIR",
     .default_text = "(none)",
     .check = check_tokenizer_dir,
     .help = "A folder of vocabulary files cachewise does not ship (llama3.tokenizer.json)"},
    {.key = Key::jobs,
     .name = "jobs",
     .flag = "--jobs",
     .type = ValueType::string,
     .type_name = "N",
     .default_text = "(the cores available)",
     .check = check_jobs,
     .help = "Threads that read the logs (default: the cores available); 1 reads on one thread. "
             "The output is the same whatever the number"},
    // Set by GitHub Actions: --format github names files from the checkout's root.
    {.key = Key::github_workspace,
     .name = "github_workspace",
     .env = "GITHUB_WORKSPACE",
     .type = ValueType::string,
     .type_name = "DIR",
     .default_text = "(the working directory)",
     .check = check_github_workspace,
     .help = "The checkout's root, that GitHub annotations name files from"},
};

// The output formats each command renders.
const std::map<std::string, std::vector<report::Format>, std::less<>> k_command_formats = {
    {"config", {report::Format::text, report::Format::json}},
    {"analyze",
     {report::Format::text, report::Format::json, report::Format::markdown, report::Format::sarif,
      report::Format::github, report::Format::html}},
    {"audit",
     {report::Format::text, report::Format::json, report::Format::markdown, report::Format::csv,
      report::Format::sarif, report::Format::github, report::Format::html}},
    {"lint",
     {report::Format::text, report::Format::json, report::Format::sarif, report::Format::github}},
    {"suggest", {report::Format::text, report::Format::json}},
    {"chain", {report::Format::text, report::Format::json}},
    {"tokens", {report::Format::text, report::Format::json}},
    {"probe", {report::Format::text, report::Format::json}},
    {"bench", {report::Format::text, report::Format::json}},
};

void
check_format_offered(const Settings& s)
{
    const auto it = k_command_formats.find(s.command);
    if (it == k_command_formats.end() ||
        std::find(it->second.begin(), it->second.end(), s.format.value) != it->second.end()) {
        return;
    }
    std::vector<std::string> names;
    for (const auto f : it->second) {
        names.emplace_back(report::to_string(f));
    }
    throw Error(fmt::format("--format {}: not offered by {} ({})",
                            report::to_string(s.format.value), s.command, in_words(names)));
}

// --max-regression on the command line compares audit's hit rate with a
// baseline's: without one, or on another command, it would be ignored
// silently. (Set in .cachewise.json it is a default, used where it applies.)
void
check_max_regression(const Settings& s)
{
    if (s.max_regression.origin != Origin::command_line) {
        return;
    }
    if (s.command != "audit") {
        throw Error(fmt::format("--max-regression: only audit has a hit rate to compare, not {}",
                                s.command.empty() ? "this command line" : s.command));
    }
    if (!s.baseline.value) {
        throw Error("--max-regression needs --baseline FILE (an audit --format json result to "
                    "compare the hit rate with)");
    }
}

} // namespace

std::string
format_help()
{
    std::string help = "Output format (default text):";
    const auto& formats = report::k_formats;
    for (std::size_t i = 0; i < std::size(formats); ++i) {
        std::vector<std::string> offered_by;
        for (const auto& [command, offered] : k_command_formats) {
            if (std::find(offered.begin(), offered.end(), formats[i]) != offered.end()) {
                offered_by.push_back(command);
            }
        }
        const bool everywhere = offered_by.size() == k_command_formats.size();
        help += fmt::format("{} {}{}", i == 0 ? "" : ",", report::to_string(formats[i]),
                            everywhere ? "" : fmt::format(" ({})", fmt::join(offered_by, ", ")));
    }
    return help;
}

const std::vector<KeyInfo>&
key_table()
{
    return k_key_table;
}

const KeyInfo&
key_info(Key key)
{
    for (const auto& k : k_key_table) {
        if (k.key == key) {
            return k;
        }
    }
    throw std::logic_error("a key missing from k_key_table");
}

const KeyInfo*
find_key(std::string_view config_name)
{
    for (const auto& k : k_key_table) {
        if (k.in_config_file && k.name == config_name) {
            return &k;
        }
    }
    return nullptr;
}

std::string
origin_text(const Settings& settings, Origin origin)
{
    switch (origin) {
    case Origin::built_in:
        return "default";
    case Origin::config_file:
        return settings.config_file ? settings.config_file->string() : "config file";
    case Origin::environment:
        return "environment";
    case Origin::command_line:
        return "command line";
    }
    return "?";
}

void
set_value(Settings& settings, const KeyInfo& key, const RawValue& value, Origin origin)
{
    const std::string reason = key.check(settings, value, origin);
    if (reason.empty()) {
        return;
    }
    switch (origin) {
    case Origin::config_file:
        throw Error(fmt::format("{}: {}: {}", origin_text(settings, origin), key.name, reason));
    case Origin::environment:
        throw Error(fmt::format("${}: {}", key.env, reason));
    default:
        throw Error(fmt::format("{}: {}", key.flag, reason));
    }
}

std::string
value_text(const Settings& s, Key key)
{
    const auto list = [&](const std::vector<std::string>& values) {
        return values.empty() ? std::string(key_info(key).default_text)
                              : fmt::format("{}", fmt::join(values, ", "));
    };
    switch (key) {
    case Key::rules:
        return s.rules_dir.value.value_or(std::string(key_info(key).default_text));
    case Key::input_format:
        return std::string(ingest::to_string(s.input_format.value));
    case Key::format:
        return std::string(report::to_string(s.format.value));
    case Key::model:
        return s.model.value.empty() ? std::string(key_info(key).default_text) : s.model.value;
    case Key::fail_on:
        // Built in, each command has its own: lint fails on errors, the
        // others report without failing.
        return s.fail_on.origin == Origin::built_in ? std::string(key_info(key).default_text)
                                                    : s.fail_on.value.text;
    case Key::placeholders:
        return list(s.placeholders.value);
    case Key::dynamic_fields:
        return list(s.dynamic_fields.value);
    case Key::disabled_rules:
        return list(s.disabled_rules.value);
    case Key::window:
        return s.window.value.text;
    case Key::max_regression:
        // Built in, no drop is checked (Settings::gate): not a limit of 0.
        return s.max_regression.origin == Origin::built_in
                   ? std::string(key_info(key).default_text)
                   : fmt::format("{}", s.max_regression.value);
    case Key::latency:
        return fmt::format("{}", s.latency.value);
    case Key::baseline:
        return s.baseline.value ? s.baseline.value->path : std::string("(none)");
    case Key::prices:
        return list(s.price_files.value);
    case Key::tokenize:
        return s.tokenize.value ? "on" : "off";
    case Key::tokenizer_dir:
        return s.tokenizer_dir.value.value_or(std::string(key_info(key).default_text));
    case Key::github_workspace:
        return s.github_workspace.value.value_or(std::string(key_info(key).default_text));
    case Key::jobs:
        return s.jobs.value > 0 ? fmt::format("{}", s.jobs.value)
                                : std::string(key_info(key).default_text);
    }
    return {};
}

Origin
origin_of(const Settings& s, Key key)
{
    switch (key) {
    case Key::rules:
        return s.rules_dir.origin;
    case Key::input_format:
        return s.input_format.origin;
    case Key::format:
        return s.format.origin;
    case Key::model:
        return s.model.origin;
    case Key::fail_on:
        return s.fail_on.origin;
    case Key::placeholders:
        return s.placeholders.origin;
    case Key::dynamic_fields:
        return s.dynamic_fields.origin;
    case Key::disabled_rules:
        return s.disabled_rules.origin;
    case Key::window:
        return s.window.origin;
    case Key::max_regression:
        return s.max_regression.origin;
    case Key::latency:
        return s.latency.origin;
    case Key::baseline:
        return s.baseline.origin;
    case Key::prices:
        return s.price_files.origin;
    case Key::tokenize:
        return s.tokenize.origin;
    case Key::tokenizer_dir:
        return s.tokenizer_dir.origin;
    case Key::github_workspace:
        return s.github_workspace.origin;
    case Key::jobs:
        return s.jobs.origin;
    }
    return Origin::built_in;
}

Settings
resolve_settings(Settings settings, const FlagValues& flags, const std::string& command,
                 const fs::path& start)
{
    settings.command = command;
    read_project_config(settings, start);
    for (const auto& key : k_key_table) {
        if (key.env.empty()) {
            continue;
        }
        const std::string env(key.env);
        if (const char* value = std::getenv(env.c_str()); value != nullptr && *value != '\0') {
            set_value(settings, key, std::string(value), Origin::environment);
        }
    }
    // In table order, so that a command line with two bad values always
    // names the same one first.
    for (const auto& key : k_key_table) {
        if (const auto it = flags.values.find(key.key); it != flags.values.end()) {
            set_value(settings, key, it->second, Origin::command_line);
        }
    }
    check_format_offered(settings);
    check_max_regression(settings);
    return settings;
}

Gate
Settings::gate(const FailOn& fallback) const
{
    Gate g;
    g.fail_on = fail_on.origin == Origin::built_in ? fallback : fail_on.value;
    g.baseline = baseline.value ? &*baseline.value : nullptr;
    if (max_regression.origin != Origin::built_in) {
        g.max_regression = max_regression.value;
    }
    return g;
}

std::vector<std::string>
Settings::placeholder_patterns() const
{
    return placeholders.value.empty() ? advise::LintOptions{}.placeholders : placeholders.value;
}

std::shared_ptr<const ruleset::Rules>
Settings::load_rules() const
{
    auto rules = ruleset::load_rules(rules_dir.value);
    if (dynamic_fields.value.empty() && price_files.value.empty()) {
        return rules;
    }
    auto extended = std::make_shared<ruleset::Rules>(*rules);
    for (const auto& file : price_files.value) {
        ruleset::add_prices(extended->pricing, file);
    }
    for (const auto& file : dynamic_fields.value) {
        ruleset::add_dynamic_fields(extended->dynamic_fields, file);
    }
    return extended;
}

} // namespace cachewise::cli
