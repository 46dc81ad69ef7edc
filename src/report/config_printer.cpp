#include "report/config_printer.hpp"

#include "report/request_json.hpp"
#include "util/escape.hpp"
#include "util/redact.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

namespace cachewise::report {

void
print_config(const ConfigView& view, Format format, std::ostream& out)
{
    if (format == Format::json) {
        Json j = json_document("config");
        j["file"] = or_null(view.file.value_or(""));
        j["settings"] = json_array(view.rows, [](const ConfigView::Row& row) {
            return Json{{"key", row.key}, {"value", redact(row.value)}, {"origin", row.origin}};
        });
        out << j.dump(2, ' ', false, Json::error_handler_t::replace) << "\n";
        return;
    }
    fmt::print(out, "config file: {}\n", view.file ? *view.file : "(none found)");
    for (const auto& row : view.rows) {
        // A value may hold anything, a pasted key included: shown safe.
        fmt::print(out, "({}) {} = {}\n", row.origin, row.key, safe_text(row.value));
    }
}

} // namespace cachewise::report
