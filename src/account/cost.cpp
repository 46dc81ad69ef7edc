#include "account/cost.hpp"

#include <algorithm>
#include <string>

namespace cachewise::account {

std::optional<ruleset::PriceSet>
prices_for(const ruleset::Pricing& pricing, std::string_view model,
           const std::optional<Timestamp>& at, std::int64_t prompt_tokens)
{
    const std::string stamp = at ? format_rfc3339(*at) : std::string();
    const auto* period =
        pricing.find(model, stamp.substr(0, std::min<std::size_t>(10, stamp.size())));
    if (period == nullptr) {
        return std::nullopt;
    }
    if (period->long_prompt_above && prompt_tokens > *period->long_prompt_above) {
        return period->long_prompt_prices;
    }
    if (at && !period->peak_minutes_utc.empty()) {
        const int minute = std::stoi(stamp.substr(11, 2)) * 60 + std::stoi(stamp.substr(14, 2));
        for (const auto& [from, to] : period->peak_minutes_utc) {
            if (minute >= from && minute < to) {
                return period->peak_prices;
            }
        }
    }
    return period->prices;
}

Money
cost_of(const Split& s, const ruleset::PriceSet& p)
{
    // Prices are per million tokens.
    Money m;
    m.fresh = static_cast<double>(s.fresh) * p.input / 1e6;
    m.write_5m = static_cast<double>(s.write_5m) * p.write_5m / 1e6;
    m.write_1h = static_cast<double>(s.write_1h) * p.write_1h / 1e6;
    m.read = static_cast<double>(s.read) * p.read / 1e6;
    m.output = static_cast<double>(s.output) * p.output / 1e6;
    return m;
}

} // namespace cachewise::account
