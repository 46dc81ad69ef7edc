#pragma once

#include "ingest/loader.hpp"
#include "report/format.hpp"
#include "util/time.hpp"

#include <optional>
#include <ostream>
#include <string_view>

namespace cachewise::report {

// --since/--until that select no request: an answer, not an input error.
// "0 requests in [START, END) (3 requests outside it, 2 files last written
// before it)".
// In JSON it is a document of its own ({schema_version, command, requests: 0,
// since, until, message, findings: []}): a baseline with no findings for the
// next run of `command`; in github two plain lines, the last "cachewise: no
// findings"; in html a page that says it. For csv and sarif the sentence
// goes to `err`: the caller prints the CSV header and SARIF's empty run, so
// that no format answers with nothing.
void print_empty_window(const ingest::LoadSummary& summary, std::string_view command,
                        std::optional<Timestamp> since, std::optional<Timestamp> until,
                        Format format, std::ostream& out, std::ostream& err);

} // namespace cachewise::report
