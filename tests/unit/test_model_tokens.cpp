#include "helpers.hpp"
#include "model/tokens.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <string>

using namespace cachewise;
using namespace cachewise::model;

namespace {

Request
request_with_estimates(const std::vector<float>& estimates, std::optional<std::int64_t> total,
                       bool unlogged_first = false)
{
    Request r;
    for (std::size_t i = 0; i < estimates.size(); ++i) {
        Segment s;
        s.estimate = estimates[i];
        if (unlogged_first && i == 0) {
            s.kind = SegmentKind::unlogged;
        }
        r.segments.push_back(s);
    }
    if (total) {
        Usage u;
        u.input_tokens = *total;
        r.usage = u;
    }
    return r;
}

std::int64_t
sum(const Request& r)
{
    return std::accumulate(r.segments.begin(), r.segments.end(), std::int64_t{0},
                           [](std::int64_t acc, const Segment& s) { return acc + s.tokens; });
}

// The estimator as first written, a byte at a time: the vectorised walk
// must give the same double, bit for bit (calibration rounds it).
double
reference_text(const ruleset::TokenRules& r, std::string_view utf8)
{
    const auto cls = [](unsigned char c) {
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
            return 0;
        }
        if (c >= '0' && c <= '9') {
            return 1;
        }
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
            return 2;
        }
        return c >= 0x80 ? 4 : 3;
    };
    const auto* p = reinterpret_cast<const unsigned char*>(utf8.data());
    const auto* const end = p + utf8.size();
    double tokens = 0;
    std::size_t punct = 0;
    std::size_t cjk = 0;
    std::size_t other = 0;
    while (p < end) {
        const int c = cls(*p);
        const auto* start = p;
        if (c <= 2) {
            while (p < end && cls(*p) == c) {
                ++p;
            }
            const auto n = static_cast<double>(p - start);
            if (c == 0) {
                tokens +=
                    1.0 + std::max(0.0, n - r.letters_free.value) / r.letters_per_extra_token.value;
            } else if (c == 1) {
                tokens += std::ceil(n / r.digits_per_token.value);
            } else if (!(n == 1 && *start == ' ' && p < end && cls(*p) <= 1)) {
                tokens += r.whitespace_run_tokens.value;
            }
        } else if (c == 3) {
            while (p < end && *p == *start) {
                ++p;
            }
            const auto n = static_cast<double>(p - start);
            if (n == 1) {
                ++punct;
            } else {
                tokens += std::ceil(n / r.repeated_punctuation_per_token.value);
            }
        } else {
            const int len = (*p & 0xE0) == 0xC0   ? 2
                            : (*p & 0xF0) == 0xE0 ? 3
                            : (*p & 0xF8) == 0xF0 ? 4
                                                  : 1;
            const bool han = len == 3 && *p >= 0xE4 && *p <= 0xE9; // U+4000..U+9FFF
            p += len;
            ++(han ? cjk : other);
        }
    }
    return tokens + static_cast<double>(punct) / r.punctuation_per_token.value +
           static_cast<double>(cjk) * r.cjk_tokens_per_char.value +
           static_cast<double>(other) * r.other_tokens_per_char.value;
}

} // namespace

TEST_SUITE("model::tokens")
{
    TEST_CASE("round_estimate is std::llround: halves, the floats beside them, signs, limits")
    {
        std::vector<float> xs = {0.0F,
                                 -0.0F,
                                 0.5F,
                                 -0.5F,
                                 1.5F,
                                 2.5F,
                                 -2.5F,
                                 0.49999997F,
                                 1e-30F,
                                 -1e-30F,
                                 8388607.5F,
                                 1e18F,
                                 -1e18F,
                                 5e18F,
                                 -5e18F,
                                 3.4e38F,
                                 std::numeric_limits<float>::infinity(),
                                 -std::numeric_limits<float>::infinity(),
                                 std::numeric_limits<float>::denorm_min()};
        for (const float half : {0.5F, 1.5F, 2.5F, 1023.5F, 4194303.5F}) {
            xs.push_back(std::nextafter(half, 0.0F));
            xs.push_back(std::nextafter(half, 1e9F));
            xs.push_back(-std::nextafter(half, 0.0F));
        }
        std::mt19937 rng(7);
        std::uniform_real_distribution<float> any(-1e7F, 1e7F);
        for (int i = 0; i < 100000; ++i) {
            xs.push_back(any(rng));
        }
        for (const float x : xs) {
            CAPTURE(x);
            CHECK(round_estimate(x) == std::llround(x));
        }
    }

    TEST_CASE("the estimate is the same as a byte-at-a-time walk, runs across 64-byte windows "
              "included")
    {
        const auto& r = test::rules().tokens;
        const TokenEstimator e(r);
        // Pieces that make every kind of run, some longer than a window.
        const std::vector<std::string> pieces = {"a",
                                                 "word",
                                                 "Supercalifragilistic",
                                                 std::string(70, 'x'),
                                                 "7",
                                                 "12345",
                                                 std::string(130, '9'),
                                                 " ",
                                                 "  ",
                                                 "\n",
                                                 "\t\t ",
                                                 std::string(66, ' '),
                                                 ".",
                                                 ",",
                                                 "==",
                                                 std::string(65, '-'),
                                                 std::string(64, '*'),
                                                 "\xE4\xBD\xA0",
                                                 "\xC3\xA9",
                                                 "\x01",
                                                 "\"",
                                                 "{"};
        std::mt19937 rng(14);
        for (int round = 0; round < 2000; ++round) {
            std::string text;
            const int n = static_cast<int>(rng() % 40);
            for (int k = 0; k < n; ++k) {
                text += pieces[rng() % pieces.size()];
            }
            INFO(text);
            CHECK(e.text(text) == reference_text(r, text));
            // Every start offset: windows fall at other places.
            const auto cut = text.size() / 3;
            CHECK(e.text(std::string_view(text).substr(cut)) ==
                  reference_text(r, std::string_view(text).substr(cut)));
        }
    }

    TEST_CASE("the estimator prices runs of text")
    {
        const TokenEstimator e(test::rules().tokens);
        CHECK(e.text("") == 0);
        // Short words are one token each; a space before a word is free.
        CHECK(e.text("the cat sat") == doctest::Approx(3));
        CHECK(e.text("The quick brown fox jumps over the lazy dog. ") ==
              doctest::Approx(11).epsilon(0.1)); // Claude counts about 11
        CHECK(e.text("12345678") == doctest::Approx(3));
        // Non-ASCII text is not free, and CJK costs more per character.
        CHECK(e.text("\xE4\xBD\xA0\xE5\xA5\xBD") > e.text("\xC3\xA9\xC3\xA9"));
        // Longer text never costs less.
        CHECK(e.text("hello world, hello world") > e.text("hello world"));
    }

    TEST_CASE("without usage, estimates are rounded and marked estimated")
    {
        auto r = request_with_estimates({10.4f, 20.6f, 0.2f}, std::nullopt);
        assign_tokens(r);
        CHECK(r.segments[0].tokens == 10);
        CHECK(r.segments[1].tokens == 21);
        CHECK(r.segments[2].tokens == 0);
        CHECK(r.segments[2].cumulative_tokens == 31);
        CHECK(r.segments[0].token_source == TokenSource::estimated);
    }

    TEST_CASE("calibration sums exactly to the reported total input")
    {
        for (const std::int64_t total : {0L, 1L, 7L, 1000L, 123457L}) {
            auto r = request_with_estimates({3.3f, 100.1f, 0.0f, 57.9f, 12.2f}, total);
            r.usage->cache_read = total / 3;
            r.usage->cache_write = total / 4;
            r.usage->input_tokens = total - total / 3 - total / 4;
            assign_tokens(r);
            CHECK(sum(r) == total);
            CHECK(r.segments.back().cumulative_tokens == total);
            CHECK(r.segments[1].token_source == TokenSource::calibrated);
            // Proportions survive: the largest estimate gets the most.
            if (total >= 1000) {
                CHECK(r.segments[1].tokens > r.segments[3].tokens);
                CHECK(r.segments[2].tokens == 0);
            }
        }
    }

    TEST_CASE("the write split is not double counted in the total")
    {
        Usage u;
        u.input_tokens = 5;
        u.cache_read = 100;
        u.cache_write = 40;
        u.cache_write_5m = 30;
        u.cache_write_1h = 10;
        CHECK(u.total_input() == 145);
        u.cache_write.reset();
        CHECK(u.total_input() == 145);
        u.input_tokens.reset();
        CHECK(!u.total_input());
    }

    TEST_CASE("an unlogged segment takes what the logged ones leave")
    {
        auto r = request_with_estimates({0.0f, 100.4f, 50.0f}, 15000, true);
        assign_tokens(r);
        CHECK(r.segments[0].tokens == 15000 - 150);
        CHECK(r.segments[0].token_source == TokenSource::inferred);
        CHECK(r.segments[1].token_source == TokenSource::estimated);
        CHECK(sum(r) == 15000);
    }

    TEST_CASE("when the logged part exceeds the total it is scaled down and the unlogged part is 0")
    {
        auto r = request_with_estimates({0.0f, 100.0f, 100.0f}, 150, true);
        assign_tokens(r);
        CHECK(r.segments[0].tokens == 0);
        CHECK(sum(r) == 150);
        CHECK(r.segments[1].token_source == TokenSource::calibrated);
    }

    TEST_CASE("a residual above exact counts goes to the tool definitions, in proportion")
    {
        // system 45, two tools 89 and 175, user 7: counted 316, reported 539.
        auto r = request_with_estimates({45, 89, 175, 7}, 539);
        r.segments[1].kind = r.segments[2].kind = SegmentKind::tool;
        for (auto& s : r.segments) {
            s.token_source = TokenSource::exact;
        }
        assign_tokens(r);
        CHECK(sum(r) == 539);
        CHECK(r.segments[0].tokens == 45);
        CHECK(r.segments[0].token_source == TokenSource::exact);
        CHECK(r.segments[3].tokens == 7);
        CHECK(r.segments[1].tokens + r.segments[2].tokens == 89 + 175 + 223);
        CHECK(r.segments[1].tokens == 164); // 89 × 487 / 264, rounded down
        CHECK(r.segments[1].token_source == TokenSource::calibrated);
        CHECK(r.counted_with_residual);
        REQUIRE(r.notes.size() == 1);
        CHECK(r.notes[0].find("223 tokens the log does not show, booked to the 2 tool "
                              "definitions") != std::string::npos);
    }

    TEST_CASE("without tool definitions the residual goes to the first segment")
    {
        auto r = request_with_estimates({10, 20}, 40);
        for (auto& s : r.segments) {
            s.token_source = TokenSource::exact;
        }
        assign_tokens(r);
        CHECK(r.segments[0].tokens == 20);
        CHECK(r.segments[1].tokens == 20);
        CHECK(r.segments[1].token_source == TokenSource::exact);
        CHECK(r.notes.at(0).find("booked to the first segment") != std::string::npos);
    }

    TEST_CASE("after a partner's prefix, exact counts stay and the residual is booked again")
    {
        auto first = request_with_estimates({45, 89, 7}, 400);
        first.segments[1].kind = SegmentKind::tool;
        auto second = request_with_estimates({45, 89, 43, 11}, 470);
        second.segments[1].kind = second.segments[2].kind = SegmentKind::tool;
        for (auto* r : {&first, &second}) {
            for (auto& s : r->segments) {
                s.token_source = TokenSource::exact;
            }
            assign_tokens(*r);
        }
        // first: the tool takes 259, the prefix of two segments is 348 tokens.
        REQUIRE(first.segments[1].tokens == 89 + 259);
        REQUIRE(calibrate_from_prefix(second, first, 2));
        CHECK(second.segments[1].tokens == first.segments[1].tokens);
        CHECK(second.segments[3].tokens == 11);
        CHECK(second.segments[3].token_source == TokenSource::exact);
        CHECK(second.segments[2].tokens == 470 - 45 - 348 - 11);
        CHECK(second.segments[2].token_source == TokenSource::calibrated);
        CHECK(second.notes.at(0).find("after the prefix shared with an earlier request, booked "
                                      "to the tool definition") != std::string::npos);

        // A reported total that leaves no room for the partner's prefix and
        // the exact rest: the rest is scaled, and the note says so.
        auto third = request_with_estimates({45, 89, 43, 11}, 420);
        third.segments[1].kind = third.segments[2].kind = SegmentKind::tool;
        for (auto& s : third.segments) {
            s.token_source = TokenSource::exact;
        }
        assign_tokens(third);
        REQUIRE(calibrate_from_prefix(third, first, 2));
        CHECK(sum(third) == 420);
        CHECK(third.segments[3].token_source == TokenSource::calibrated);
        CHECK(third.notes.at(0).find("scaled to the reported total") != std::string::npos);
    }

    TEST_CASE("the model multiplier applies to newer tokenizers")
    {
        const auto& t = test::rules().tokens;
        CHECK(t.multiplier_for("claude-sonnet-4-5") == doctest::Approx(1.0));
        CHECK(t.multiplier_for("claude-opus-4-7") == doctest::Approx(1.3));
        CHECK(t.multiplier_for("claude-opus-5") == doctest::Approx(1.3));
    }
}
