#include "cli/options.hpp"
#include "report/config_printer.hpp"

#include <iostream>

namespace cachewise::cli {

int
run_config_show(const Settings& settings)
{
    report::ConfigView view;
    if (settings.config_file) {
        view.file = settings.config_file->string();
    }
    for (const auto& key : key_table()) {
        if (key.in_config_file) {
            view.rows.push_back({origin_text(settings, origin_of(settings, key.key)),
                                 std::string(key.name), value_text(settings, key.key)});
        }
    }
    report::print_config(view, settings.format.value, std::cout);
    return 0;
}

} // namespace cachewise::cli
