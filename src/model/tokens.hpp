#pragma once

#include "model/request.hpp"
#include "ruleset/rules.hpp"

#include <array>
#include <cmath>
#include <cstdint>
#include <string_view>

namespace cachewise::model {

// Estimates token counts from text without a tokenizer: runs of letters,
// digits, punctuation, whitespace and non-ASCII characters are priced by the
// ratios in rules/tokens.json. Exact counts come from calibration against the
// reported usage, never from here.
class TokenEstimator {
public:
    explicit TokenEstimator(const ruleset::TokenRules& rules);

    // Tokens of UTF-8 text, before the model multiplier.
    [[nodiscard]] double text(std::string_view utf8) const;

    [[nodiscard]] double block_overhead() const { return m_block; }
    [[nodiscard]] double message_overhead() const { return m_message; }
    [[nodiscard]] double tool_overhead() const { return m_tool; }
    [[nodiscard]] double image() const { return m_image; }
    [[nodiscard]] double document(std::size_t base64_bytes) const
    {
        return static_cast<double>(base64_bytes) / m_document_bytes_per_token;
    }
    [[nodiscard]] double error_band() const { return m_error_band; } // fraction, e.g. 0.2
    [[nodiscard]] double multiplier_for(std::string_view model) const
    {
        return m_rules->multiplier_for(model);
    }

private:
    // Tokens of a run of n letters, n digits, n repeated punctuation marks.
    [[nodiscard]] double letters(std::size_t n) const;
    [[nodiscard]] double digits(std::size_t n) const;
    [[nodiscard]] double repeated(std::size_t n) const;

    // Prices the runs of ASCII text from p that end in the next 64 bytes, in
    // order; returns the bytes done (0: a longer run, or a non-ASCII byte).
    std::size_t ascii_runs(const unsigned char* p, const unsigned char* end, double& tokens,
                           std::size_t& punct) const;

    static constexpr std::size_t k_table = 65; // runs up to a window long are looked up
    const ruleset::TokenRules* m_rules;
    double m_letters_free;
    double m_letters_extra;
    double m_digits;
    double m_punct;
    double m_repeat;
    double m_space_run;
    double m_cjk;
    double m_other;
    double m_block;
    double m_message;
    double m_tool;
    double m_image;
    double m_document_bytes_per_token;
    double m_error_band;
    // Tokens of a run of n letters, digits, whitespace, repeated punctuation.
    std::array<std::array<double, k_table>, 4> m_run{};
};

// std::llround of an estimate, without the library call (one a segment, for
// every request, several times): half away from zero, through a double, in
// which |x| + 0.5 is exact for every float this small. Equal to std::llround
// for every float (checked over all 2^32 bit patterns); NaN, infinities and
// magnitudes from 4e18 up go to std::llround itself.
[[nodiscard]] inline std::int64_t
round_estimate(float x)
{
    const double magnitude = std::fabs(static_cast<double>(x));
    if (!(magnitude < 4.0e18)) {
        return std::llround(x);
    }
    const auto r = static_cast<std::int64_t>(magnitude + 0.5);
    return x < 0 ? -r : r;
}

// Rounds each segment's estimate to whole tokens, or, when the request's
// usage reports a total, scales them so they sum to it exactly (largest
// remainder). An `unlogged` segment takes what the logged ones leave.
// Then fills cumulative_tokens.
void assign_tokens(Request& request);

// Every logged segment was counted with the model's tokenizer (token_source
// exact), and there is one.
bool counted_exactly(const Request& request);

// Pins the first `shared` segments of `request` to the token counts of the
// same segments in `source` (an earlier request with the same prefix: same
// content, same tokens) and spreads what the reported total leaves over the
// rest by their estimates. Identical prefixes then sit at identical token
// positions in every request of a stream, which independent calibration
// cannot promise. A reported total below the shared prefix's count pins the
// longest part of the prefix it holds. Returns false and changes nothing
// when the counts do not fit (no reported total, nothing of the prefix fits).
bool calibrate_from_prefix(Request& request, const Request& source, std::size_t shared);

} // namespace cachewise::model
