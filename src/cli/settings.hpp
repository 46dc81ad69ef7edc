#pragma once

#include "cli/gate.hpp"
#include "ingest/loader.hpp"
#include "report/format.hpp"
#include "ruleset/rules.hpp"

#include <array>
#include <cstddef>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace cachewise::cli {

// Where a value came from. Precedence, lowest first (as ccache's "Config
// priority" comments): the built-in default < .cachewise.json < the
// environment < the command line.
enum class Origin { built_in, config_file, environment, command_line };

template <typename T> struct Setting {
    T value{};
    Origin origin = Origin::built_in;
};

// A duration as given ("1h30m") and in seconds.
struct Duration {
    std::string text;
    double seconds = 0;
};

// The settings of the key table: a value may come from a default, the
// config file, the environment or a flag, each with its origin. A new
// setting is a Key, a row in k_key_table (settings.cpp) with its check, a
// member of Settings, a case in origin_of and value_text, and
// add_setting_option where a command takes its flag.
enum class Key {
    rules,
    input_format,
    format,
    model,
    fail_on,
    placeholders,
    dynamic_fields,
    disabled_rules,
    window,
    max_regression,
    latency,
    baseline,
    prices,
    tokenize,
    tokenizer_dir,
    github_workspace,
    jobs,
};

// The shape of a value where it is written: a flag's text, a JSON string,
// a list of strings, or a JSON number.
enum class ValueType { string, string_list, number };
using RawValue = std::variant<std::string, std::vector<std::string>, double>;

struct Settings;

// One row of the key table (ccache's k_config_key_table): the key's name in
// .cachewise.json and `config show`, its flag and environment variable (empty
// when it has none), its type, its default as `config show` prints it, its
// check (which also stores the value; it returns the reason a value is
// refused, empty when accepted) and its help.
struct KeyInfo {
    Key key;
    std::string_view name;
    std::string_view flag;
    std::string_view env = {};
    ValueType type = ValueType::string;
    bool in_config_file = false; // settable in .cachewise.json, listed by `config show`
    bool appends = false;        // a list the command line adds to, rather than replaces
    std::string_view type_name;  // the flag's value in --help
    std::string_view default_text;
    std::string (*check)(Settings& settings, const RawValue& value, Origin origin) = nullptr;
    std::string_view help;
};

// Every key, in `config show` order for the ones in the config file.
const std::vector<KeyInfo>& key_table();
const KeyInfo& key_info(Key key);
const KeyInfo* find_key(std::string_view config_name);

// The whole configuration a command runs with, typed and checked.
struct Settings {
    std::string command; // the command the settings are for ("" before it is known)
    std::optional<std::filesystem::path> config_file; // the .cachewise.json read

    Setting<std::optional<std::string>> rules_dir; // else the built-in rules
    Setting<ingest::InputFormat> input_format{ingest::InputFormat::auto_detect};
    Setting<report::Format> format{report::Format::text};
    Setting<std::string> model;                                   // empty: the request's own
    Setting<FailOn> fail_on{{FailOn::Level::error, {}, "error"}}; // lint's gate; others: none
    Setting<std::vector<std::string>> placeholders;               // empty: the built-in syntaxes
    Setting<std::vector<std::string>> dynamic_fields;             // extra pattern files
    Setting<std::vector<std::string>> disabled_rules;
    Setting<Duration> window{{"1h", 3600}};
    Setting<double> max_regression{0};
    Setting<double> latency{2.0};
    Setting<std::optional<Baseline>> baseline;     // read once, checked for the command
    Setting<std::vector<std::string>> price_files; // laid over rules/pricing.json
    // Exact token counts where the model's tokenizer is available (src/tokenize/):
    // on by default, --tokenize=off (or --no-tokenize) keeps the estimates.
    Setting<bool> tokenize{true};
    Setting<std::optional<std::string>> tokenizer_dir; // vocabularies cachewise does not ship
    Setting<std::optional<std::string>>
        github_workspace;      // where GitHub annotations name files from
    Setting<unsigned> jobs{0}; // threads that read logs; 0: the cores available

    // Flags without a config key or a check.
    bool strict = false;
    bool quiet = false;
    std::optional<std::string> output; // -o FILE: the report, written atomically

    // The CI gate: --fail-on or the config's, else the command's `fallback`.
    [[nodiscard]] Gate gate(const FailOn& fallback) const;
    [[nodiscard]] std::shared_ptr<const ruleset::Rules> load_rules() const;
    // --jobs, or the cores available when it is 0.
    [[nodiscard]] unsigned threads() const
    {
        return jobs.value > 0 ? jobs.value : ingest::default_jobs();
    }
    // The placeholders lint and suggest look for.
    [[nodiscard]] std::vector<std::string> placeholder_patterns() const;
};

// What the command line gave for each key, unchecked: CLI11 fills it, and
// resolve_settings checks it.
struct FlagValues {
    std::map<Key, RawValue> values;
    std::map<Key, std::string> flag_text; // CLI11's storage of a flag with a value (--tokenize)
};

// The settings of `command`: defaults, then the nearest .cachewise.json from
// `start`, then the environment, then the flags, each value checked as it
// is set; `settings` comes with only the flags that have no key (--quiet,
// --strict, -o) set. Throws Error naming the flag (or the file and key) of
// a bad value.
Settings resolve_settings(Settings settings, const FlagValues& flags, const std::string& command,
                          const std::filesystem::path& start);

// Sets one key from `origin`; throws Error with "--flag: reason" (or
// "FILE: key: reason") for a value its check refuses.
void set_value(Settings& settings, const KeyInfo& key, const RawValue& value, Origin origin);

// --format's help: every format, with the commands that offer it.
std::string format_help();

// The value of a key as `config show` prints it.
std::string value_text(const Settings& settings, Key key);
Origin origin_of(const Settings& settings, Key key);
// "default", the config file's path, "environment" or "command line".
std::string origin_text(const Settings& settings, Origin origin);

} // namespace cachewise::cli
