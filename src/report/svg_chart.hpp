#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace cachewise::report {

// Small helpers for the inline SVG charts of the HTML report. Coordinates
// are written with one decimal so output is stable across platforms;
// colours come from CSS classes (light and dark schemes), never from here.

// Up to about `count` round tick values from 0 to at least `max` (1, 2, 5 × 10^k steps).
std::vector<double> nice_ticks(double max, int count);

// Up to about `count` ticks from 0 past `max` seconds at a step a clock
// reads well: 1, 2, 5, 10, 15, 30 s; 1, 2, 5, 10, 15, 30 min; 1, 2, 3, 6,
// 12 h; then days.
std::vector<double> time_ticks(double max, int count);

// "12", "1.5k", "2.3M": short axis labels for token counts.
std::string short_count(double value);

// "0", "45s", "12m", "3h05m", "2d4h": axis labels for seconds from the start.
std::string short_duration(double seconds);

// <svg ...> opening tag: a chart is an image whose words are in the table
// named by `table_id` (aria-describedby) and in `label`.
std::string svg_open(double width, double height, std::string_view label,
                     std::string_view table_id);

// A rectangle of CSS class `css`; `title` (escaped here) becomes its tooltip.
std::string svg_rect(double x, double y, double w, double h, std::string_view css,
                     std::string_view title = "");

std::string svg_line(double x1, double y1, double x2, double y2, std::string_view css);

// Text (escaped here) anchored "start", "middle" or "end".
std::string svg_text(double x, double y, std::string_view text, std::string_view anchor = "start",
                     std::string_view css = "");

} // namespace cachewise::report
