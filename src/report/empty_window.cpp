#include "report/empty_window.hpp"

#include "util/format.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

namespace cachewise::report {

void
print_empty_window(const ingest::LoadSummary& s, std::optional<Timestamp> since,
                   std::optional<Timestamp> until, std::ostream& out)
{
    std::string why;
    if (s.filtered > 0) {
        why = fmt::format("{} outside it", count_noun(s.filtered, "request"));
    }
    if (s.files_skipped > 0) {
        why += fmt::format("{}{} last written before it", why.empty() ? "" : ", ",
                           count_noun(s.files_skipped, "file"));
    }
    fmt::print(out, "0 requests in [{}, {}) ({})\n", since ? format_rfc3339(*since) : "the start",
               until ? format_rfc3339(*until) : "the end", why);
}

} // namespace cachewise::report
