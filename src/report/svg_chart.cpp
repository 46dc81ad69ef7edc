#include "report/svg_chart.hpp"

#include "report/html_escape.hpp"

#include <fmt/format.h>

#include <cmath>

namespace cachewise::report {

std::vector<double>
nice_ticks(double max, int count)
{
    if (!(max > 0) || count < 1) {
        return {0};
    }
    const double rough = max / count;
    const double magnitude = std::pow(10.0, std::floor(std::log10(rough)));
    double step = magnitude;
    for (const double m : {1.0, 2.0, 5.0, 10.0}) {
        step = m * magnitude;
        if (step >= rough) {
            break;
        }
    }
    std::vector<double> ticks;
    for (double v = 0; v < max + step * 0.999; v += step) {
        ticks.push_back(v);
    }
    return ticks;
}

std::vector<double>
time_ticks(double max, int count)
{
    if (!(max > 0) || count < 1) {
        return {0};
    }
    static constexpr double k_steps[] = {1,   2,   5,    10,   15,   30,    60,    120,   300,
                                         600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400};
    const double rough = max / count;
    double step = 0;
    for (const double s : k_steps) {
        step = s;
        if (s >= rough) {
            break;
        }
    }
    if (step < rough) {
        step = 86400 * std::ceil(rough / 86400);
    }
    std::vector<double> ticks;
    for (double v = 0; v < max + step * 0.999; v += step) {
        ticks.push_back(v);
    }
    return ticks;
}

std::string
short_count(double value)
{
    if (value >= 1e6) {
        return fmt::format("{:.1f}M", value / 1e6);
    }
    if (value >= 1e3) {
        return fmt::format("{:.1f}k", value / 1e3);
    }
    return fmt::format("{:.0f}", value);
}

std::string
short_duration(double seconds)
{
    const auto s = static_cast<long long>(std::llround(seconds));
    if (s < 60) {
        return fmt::format("{}s", s);
    }
    if (s < 3600) {
        return s % 60 == 0 ? fmt::format("{}m", s / 60) : fmt::format("{}m{:02}s", s / 60, s % 60);
    }
    if (s < 86400) {
        return fmt::format("{}h{:02}m", s / 3600, (s % 3600) / 60);
    }
    return fmt::format("{}d{}h", s / 86400, (s % 86400) / 3600);
}

std::string
svg_open(double width, double height, std::string_view label, std::string_view table_id)
{
    return fmt::format("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {:.0f} {:.0f}\" "
                       "width=\"{:.0f}\" height=\"{:.0f}\" role=\"img\" aria-label=\"{}\" "
                       "aria-describedby=\"{}\">",
                       width, height, width, height, html_escape(label), html_escape(table_id));
}

std::string
svg_rect(double x, double y, double w, double h, std::string_view css, std::string_view title)
{
    if (title.empty()) {
        return fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" "
                           "class=\"{}\"/>",
                           x, y, w, h, css);
    }
    return fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" "
                       "class=\"{}\"><title>{}</title></rect>",
                       x, y, w, h, css, html_escape(title));
}

std::string
svg_line(double x1, double y1, double x2, double y2, std::string_view css)
{
    return fmt::format(
        "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" class=\"{}\"/>", x1, y1, x2,
        y2, css);
}

std::string
svg_text(double x, double y, std::string_view text, std::string_view anchor, std::string_view css)
{
    return fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"{}\"{}>{}</text>", x, y,
                       anchor, css.empty() ? "" : fmt::format(" class=\"{}\"", css),
                       html_escape(text));
}

} // namespace cachewise::report
