#pragma once

#include <ostream>
#include <string_view>

namespace cachewise::report {

// The frame of the HTML report: a page that needs nothing outside itself.
// A Content-Security-Policy allows no fetch of any kind (no fonts, images,
// scripts or styles from anywhere but the page), so it opens offline from
// file:// and cannot reach the network. Styles follow prefers-color-scheme
// and print (light on paper whatever the screen); colours are the Okabe–Ito
// palette, safe for colour-blind eyes.
// The script only sorts and filters tables: without it the page is whole.
void html_page_start(std::ostream& out, std::string_view title, std::string_view command);
void html_page_end(std::ostream& out);

} // namespace cachewise::report
