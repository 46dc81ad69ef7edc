#pragma once

#include "report/html_data.hpp"

#include <ostream>

namespace cachewise::report {

// Writes the self-contained HTML report (`--format html` of audit and
// analyze): six views, each a chart with the table behind it — summary
// cards, cost waterfall, timeline per stream, hit rate over time, causes,
// and each break with its was/now excerpt plus the hot shared prefixes.
// Every piece of log text is HTML-escaped. Nothing of the run (time, host,
// path of the binary) is written: the same input gives the same page.
void print_html(const HtmlReport& report, std::ostream& out);

} // namespace cachewise::report
