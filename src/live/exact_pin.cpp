#include "live/exact_pin.hpp"

#include "model/breakpoints.hpp"
#include "util/error.hpp"
#include "util/file.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace cachewise::live {

std::string
body_json_of(const model::Request& request)
{
    const std::string text = value_or_throw(read_file(request.file), request.file);
    // One body (or one record) in the whole file, else the request's line of a log.
    auto j = nlohmann::ordered_json::parse(text, nullptr, false);
    if (j.is_discarded() && request.line > 0) {
        std::size_t begin = 0;
        for (std::uint64_t n = 1; n < request.line && begin != std::string::npos; ++n) {
            begin = text.find('\n', begin);
            begin = begin == std::string::npos ? begin : begin + 1;
        }
        if (begin != std::string::npos) {
            const auto end = text.find('\n', begin);
            j = nlohmann::ordered_json::parse(
                text.substr(begin, end == std::string::npos ? std::string::npos : end - begin),
                nullptr, false);
        }
    }
    if (j.is_discarded() || !j.is_object()) {
        throw Error(fmt::format("{}:{}: not a JSON request body", request.file, request.line));
    }
    return j.contains("request") ? j["request"].dump() : j.dump();
}

namespace {

// Spreads `target` tokens over segments [first, last] in proportion to their
// estimates (largest remainder).
void
spread(model::Request& r, std::size_t first, std::size_t last, std::int64_t target)
{
    double sum = 0;
    for (std::size_t i = first; i <= last; ++i) {
        sum += std::max(0.0, static_cast<double>(r.segments[i].estimate));
    }
    std::vector<std::pair<double, std::size_t>> remainders;
    std::int64_t given = 0;
    for (std::size_t i = first; i <= last; ++i) {
        const double share =
            sum > 0 ? static_cast<double>(target) *
                          std::max(0.0, static_cast<double>(r.segments[i].estimate)) / sum
                    : static_cast<double>(target) / static_cast<double>(last - first + 1);
        const auto whole = static_cast<std::int64_t>(std::floor(share));
        r.segments[i].tokens = whole;
        r.segments[i].token_source = model::TokenSource::calibrated;
        given += whole;
        remainders.emplace_back(share - static_cast<double>(whole), i);
    }
    std::sort(remainders.begin(), remainders.end(),
              [](const auto& a, const auto& b) { return a.first > b.first; });
    for (std::size_t k = 0; given < target && k < remainders.size(); ++k, ++given) {
        ++r.segments[remainders[k].second].tokens;
    }
}

} // namespace

bool
pin_exact_tokens(model::Request& request, const std::string& body_json,
                 advise::PrefixCounter& counter)
{
    if (request.segments.empty()) {
        return false;
    }
    std::set<std::size_t> boundaries{request.segments.size() - 1};
    for (std::size_t i = 0; i + 1 < request.segments.size(); ++i) {
        const auto level = request.segments[i].path.level;
        if (level != request.segments[i + 1].path.level && level != model::Level::messages) {
            boundaries.insert(i); // the end of the tools or of the system prompt
        }
    }
    for (const auto& bp : model::breakpoints(request)) {
        boundaries.insert(bp.segment);
    }
    std::map<std::size_t, std::int64_t> exact;
    for (const auto b : boundaries) {
        const auto n = counter.count_prefix(body_json, request, b);
        if (!n) {
            return false;
        }
        exact[b] = *n;
    }
    std::size_t first = 0;
    std::int64_t before = 0;
    for (const auto& [b, n] : exact) {
        spread(request, first, b, std::max<std::int64_t>(0, n - before));
        before = std::max(before, n);
        first = b + 1;
    }
    std::int64_t cumulative = 0;
    for (auto& s : request.segments) {
        cumulative += s.tokens;
        s.cumulative_tokens = cumulative;
    }
    return true;
}

} // namespace cachewise::live
