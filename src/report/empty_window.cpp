#include "report/empty_window.hpp"

#include "report/html_escape.hpp"
#include "report/html_page.hpp"
#include "report/request_json.hpp"
#include "util/format.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <nlohmann/json.hpp>

namespace cachewise::report {

void
print_empty_window(const ingest::LoadSummary& s, std::string_view command,
                   std::optional<Timestamp> since, std::optional<Timestamp> until, Format format,
                   std::ostream& out, std::ostream& err)
{
    std::string why;
    if (s.filtered > s.filtered_untimed) {
        why = fmt::format("{} outside it", count_noun(s.filtered - s.filtered_untimed, "request"));
    }
    if (s.filtered_untimed > 0) {
        why += fmt::format("{}{} without a start time", why.empty() ? "" : ", ",
                           count_noun(s.filtered_untimed, "request"));
    }
    if (s.files_skipped > 0) {
        why += fmt::format("{}{} last written before it", why.empty() ? "" : ", ",
                           count_noun(s.files_skipped, "file"));
    }
    const std::string message =
        fmt::format("0 requests in [{}, {}) ({})", since ? format_rfc3339(*since) : "the start",
                    until ? format_rfc3339(*until) : "the end", why);
    if (format == Format::json) {
        const auto bound = [](std::optional<Timestamp> t) {
            return t ? nlohmann::ordered_json(format_rfc3339(*t)) : nlohmann::ordered_json();
        };
        // A nightly job's baseline for the next night: no findings, and
        // the command's own schema (its requests an empty list).
        const nlohmann::ordered_json doc{{"schema_version", json_schema_version(command)},
                                         {"command", command},
                                         {"requests", nlohmann::ordered_json::array()},
                                         {"since", bound(since)},
                                         {"until", bound(until)},
                                         {"message", message},
                                         {"findings", nlohmann::ordered_json::array()}};
        out << doc.dump(2) << "\n";
    } else if (format == Format::text || format == Format::markdown) {
        fmt::print(out, "{}\n", message);
    } else if (format == Format::github) {
        // Plain lines, no workflow command; the last one as every run's.
        fmt::print(out, "cachewise: {}\ncachewise: no findings\n", message);
    } else if (format == Format::html) {
        html_page_start(out, "cachewise: 0 requests", "empty-window");
        fmt::print(out, "<main>\n<h1>cachewise</h1>\n<p>{}</p>\n</main>\n", html_escape(message));
        html_page_end(out);
    } else {
        // csv: the command prints its header; sarif: the caller, an empty run.
        fmt::print(err, "cachewise: {}\n", message);
    }
}

} // namespace cachewise::report
