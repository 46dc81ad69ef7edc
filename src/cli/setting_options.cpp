#include "cli/setting_options.hpp"

#include <CLI/CLI.hpp>

namespace cachewise::cli {

CLI::Option*
add_setting_option(CLI::App& command, Key key, FlagValues& flags, std::string_view help)
{
    const KeyInfo& info = key_info(key);
    std::string text(help.empty() ? info.help : help);
    if (key == Key::format && help.empty()) {
        text = format_help();
    }
    if (key == Key::tokenize) {
        // A flag, as it was before counting became the default: --tokenize
        // alone is on, --tokenize=off and --no-tokenize turn it off.
        // Both on one command line contradict each other: a usage error.
        auto* off = command.add_flag_callback(
            "--no-tokenize", [&flags] { flags.values[Key::tokenize] = std::string("off"); },
            "Keep the estimated token counts (as --tokenize=off)");
        return command.add_flag(std::string(info.flag), flags.flag_text[key], text)
            ->each([&flags, key](const std::string& value) { flags.values[key] = value; })
            ->excludes(off);
    }
    if (info.type == ValueType::string_list) {
        return command
            .add_option_function<std::vector<std::string>>(
                std::string(info.flag),
                [&flags, key](const std::vector<std::string>& values) {
                    flags.values[key] = values;
                },
                text)
            ->type_name(std::string(info.type_name))
            ->expected(1)
            ->allow_extra_args(false)
            ->take_all();
    }
    return command
        .add_option_function<std::string>(
            std::string(info.flag),
            [&flags, key](const std::string& value) { flags.values[key] = value; }, text)
        ->type_name(std::string(info.type_name));
}

void
add_log_argument(CLI::App& command, std::vector<std::string>& inputs)
{
    command
        .add_option("LOG", inputs,
                    "Log files or directories (walked recursively); - reads standard input")
        ->required();
}

} // namespace cachewise::cli
