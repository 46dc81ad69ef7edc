#include "analysis/code_regions.hpp"

#include <algorithm>
#include <array>

namespace cachewise::analysis {

namespace {

bool
starts_fence(std::string_view line)
{
    const auto first = line.find_first_not_of(" \t");
    if (first == std::string_view::npos) {
        return false;
    }
    line.remove_prefix(first);
    return line.rfind("```", 0) == 0 || line.rfind("~~~", 0) == 0;
}

// A line of code rather than prose: markers that prose rarely carries.
bool
reads_as_code(std::string_view line)
{
    static constexpr std::array<std::string_view, 10> k_markers = {
        "f\"", "f'", "print(", ".format(", "=>", "==", "();", "def ", "for (", "return "};
    for (const auto marker : k_markers) {
        if (line.find(marker) != std::string_view::npos) {
            return true;
        }
    }
    const auto last = line.find_last_not_of(" \t\r");
    return last != std::string_view::npos && (line[last] == ';' || line[last] == '{');
}

void
inline_spans(std::string_view line, std::size_t offset,
             std::vector<std::pair<std::size_t, std::size_t>>& out)
{
    std::size_t open = std::string_view::npos;
    for (std::size_t i = 0; i < line.size(); ++i) {
        if (line[i] != '`') {
            continue;
        }
        if (open == std::string_view::npos) {
            open = i;
        } else {
            out.emplace_back(offset + open, offset + i + 1);
            open = std::string_view::npos;
        }
    }
}

} // namespace

std::vector<std::pair<std::size_t, std::size_t>>
code_regions(std::string_view text)
{
    std::vector<std::pair<std::size_t, std::size_t>> out;
    std::size_t fence_start = std::string_view::npos;
    std::size_t pos = 0;
    while (pos < text.size()) {
        const auto nl = text.find('\n', pos);
        const std::size_t end = nl == std::string_view::npos ? text.size() : nl + 1;
        const std::string_view line = text.substr(pos, end - pos);
        if (starts_fence(line)) {
            if (fence_start == std::string_view::npos) {
                fence_start = pos;
            } else {
                out.emplace_back(fence_start, end);
                fence_start = std::string_view::npos;
            }
        } else if (fence_start == std::string_view::npos) {
            if (reads_as_code(line)) {
                out.emplace_back(pos, end);
            } else {
                inline_spans(line, pos, out);
            }
        }
        pos = end;
    }
    if (fence_start != std::string_view::npos) {
        out.emplace_back(fence_start, text.size()); // an unclosed fence runs to the end
    }
    return out;
}

bool
inside(const std::vector<std::pair<std::size_t, std::size_t>>& regions, std::size_t begin,
       std::size_t end)
{
    const auto it =
        std::upper_bound(regions.begin(), regions.end(), begin,
                         [](std::size_t value, const std::pair<std::size_t, std::size_t>& r) {
                             return value < r.first;
                         });
    if (it == regions.begin()) {
        return false;
    }
    const auto& r = *std::prev(it);
    return begin >= r.first && end <= r.second;
}

} // namespace cachewise::analysis
