#pragma once

#include <string>
#include <string_view>

namespace cachewise::report {

// Text from a log (prompt excerpts, ids, paths) placed in an HTML page, in an
// element or in a quoted attribute: & < > " ' become entities, so no log text
// can close a tag, an attribute or a <script>. Control characters other than
// tab and newline become U+FFFD (a page shows them as nothing useful).
std::string html_escape(std::string_view text);

// A was/now excerpt from analysis::Excerpt ("…context«changed»context…"),
// escaped, with the changed part inside <mark>. The markers are the first «
// and the first » after it, as divergence.cpp writes them; an excerpt without
// them is escaped whole.
std::string html_excerpt(std::string_view excerpt);

// A stable, HTML-id-safe token for any text: letters, digits, '-' and '_'
// kept, anything else as '-' ("CW020" -> "CW020", "a b/c" -> "a-b-c").
std::string html_id(std::string_view text);

} // namespace cachewise::report
