#include "report/config_printer.hpp"

#include "util/escape.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

namespace cachewise::report {

void
print_config(const ConfigView& view, std::ostream& out)
{
    fmt::print(out, "config file: {}\n", view.file ? *view.file : "(none found)");
    for (const auto& row : view.rows) {
        // A value may hold anything, a pasted key included: shown safe.
        fmt::print(out, "({}) {} = {}\n", row.origin, row.key, safe_text(row.value));
    }
}

} // namespace cachewise::report
