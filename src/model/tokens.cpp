#include "model/tokens.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#if defined(__SSE2__)
#include <immintrin.h>
#endif

namespace cachewise::model {

namespace {

enum CharClass : unsigned char { k_letter, k_digit, k_space, k_punct, k_high };

constexpr std::array<unsigned char, 256>
make_classes()
{
    std::array<unsigned char, 256> t{};
    for (int c = 0; c < 256; ++c) {
        unsigned char cls = k_punct;
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
            cls = k_letter;
        } else if (c >= '0' && c <= '9') {
            cls = k_digit;
        } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
            cls = k_space;
        } else if (c >= 0x80) {
            cls = k_high;
        }
        t[static_cast<std::size_t>(c)] = cls;
    }
    return t;
}

constexpr auto k_classes = make_classes();

bool
is_cjk(std::uint32_t cp)
{
    return (cp >= 0x3040 && cp <= 0x30FF) || (cp >= 0x3400 && cp <= 0x9FFF) ||
           (cp >= 0xAC00 && cp <= 0xD7AF) || (cp >= 0xF900 && cp <= 0xFAFF) ||
           (cp >= 0x20000 && cp <= 0x2FFFF);
}

} // namespace

TokenEstimator::TokenEstimator(const ruleset::TokenRules& rules)
    : m_rules(&rules), m_letters_free(rules.letters_free.value),
      m_letters_extra(rules.letters_per_extra_token.value), m_digits(rules.digits_per_token.value),
      m_punct(rules.punctuation_per_token.value),
      m_repeat(rules.repeated_punctuation_per_token.value),
      m_space_run(rules.whitespace_run_tokens.value), m_cjk(rules.cjk_tokens_per_char.value),
      m_other(rules.other_tokens_per_char.value), m_block(rules.block_overhead.value),
      m_message(rules.message_overhead.value), m_tool(rules.tool_overhead.value),
      m_image(rules.image_tokens.value),
      m_document_bytes_per_token(rules.document_base64_bytes_per_token.value),
      m_error_band(rules.error_band())
{
    // The same expressions as for a longer run: a table changes no bit.
    for (std::size_t n = 0; n < k_table; ++n) {
        const auto d = static_cast<double>(n);
        m_run[k_letter][n] = 1.0 + std::max(0.0, d - m_letters_free) / m_letters_extra;
        m_run[k_digit][n] = std::ceil(d / m_digits);
        m_run[k_space][n] = m_space_run;
        // A single mark is counted apart (punctuation_per_token), not here.
        m_run[k_punct][n] = n == 1 ? 0.0 : std::ceil(d / m_repeat);
    }
}

#if defined(__SSE2__)
namespace {

// Where the runs of up to 64 bytes of text start, found 16 bytes a step: a
// run's length is then the distance between two set bits, without a table
// lookup and a branch per byte.
struct RunWindow {
    std::size_t width = 0;    // bytes of text in the window (64 unless it ends)
    std::uint64_t starts = 0; // bit i: a run starts at byte i (bit 0 always)
    std::uint64_t word = 0;   // bit i: byte i is a letter or digit
    std::uint64_t blank = 0;  // bit i: byte i is ' '
    std::uint64_t punct = 0;  // bit i: byte i is ASCII punctuation
    std::uint64_t high = 0;   // bit i: byte i is not ASCII
};

// Lanes whose byte minus `low` is at most `span`, unsigned.
inline __m128i
in_range(__m128i v, char low, char span)
{
    const __m128i d = _mm_sub_epi8(v, _mm_set1_epi8(low));
    return _mm_cmpeq_epi8(_mm_min_epu8(d, _mm_set1_epi8(span)), d);
}

inline std::uint64_t
bits(__m128i lanes, int block)
{
    return static_cast<std::uint64_t>(static_cast<unsigned>(_mm_movemask_epi8(lanes)))
           << (16 * block);
}

RunWindow
load_window(const unsigned char* p, const unsigned char* end)
{
    alignas(16) unsigned char pad[64];
    const auto avail = static_cast<std::size_t>(end - p);
    const unsigned char* src = p;
    if (avail < 64) {
        std::memset(pad, 0, sizeof pad);
        std::memcpy(pad, p, avail);
        src = pad;
    }
    RunWindow w;
    w.width = std::min<std::size_t>(avail, 64);
    std::uint64_t letter = 0;
    std::uint64_t digit = 0;
    std::uint64_t space = 0;
    std::uint64_t blank = 0;
    std::uint64_t same = 0; // bit i: byte i equals byte i - 1
    __m128i previous = _mm_set1_epi8(static_cast<char>(src[0] ^ 1));
    for (int b = 0; b < 4; ++b) {
        const __m128i v =
            _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + std::ptrdiff_t{16} * b));
        // v shifted by one byte, the last byte of the block before in front.
        const __m128i before = _mm_or_si128(_mm_slli_si128(v, 1), _mm_srli_si128(previous, 15));
        previous = v;
        letter |= bits(in_range(_mm_or_si128(v, _mm_set1_epi8(0x20)), 'a', 25), b);
        digit |= bits(in_range(v, '0', 9), b);
        const __m128i is_blank = _mm_cmpeq_epi8(v, _mm_set1_epi8(' '));
        blank |= bits(is_blank, b);
        space |= bits(_mm_or_si128(is_blank, in_range(v, '\t', 4)), b);
        same |= bits(_mm_cmpeq_epi8(v, before), b);
        w.high |= bits(v, b); // the sign bit
    }
    const std::uint64_t valid =
        w.width == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << w.width) - 1;
    const std::uint64_t punct = ~(letter | digit | space | w.high);
    const auto changes = [](std::uint64_t m) { return m ^ (m << 1); };
    // A run starts where the class changes, and a punctuation run wherever
    // the character does (a run of one repeated character).
    w.starts = (changes(letter) | changes(digit) | changes(space) | (punct & ~same) | 1) & valid;
    w.word = (letter | digit) & valid;
    w.blank = blank & valid;
    w.punct = punct & valid;
    w.high &= valid;
    return w;
}

} // namespace
#endif

double
TokenEstimator::letters(std::size_t n) const
{
    return n < k_table
               ? m_run[k_letter][n]
               : 1.0 + std::max(0.0, static_cast<double>(n) - m_letters_free) / m_letters_extra;
}

double
TokenEstimator::digits(std::size_t n) const
{
    return n < k_table ? m_run[k_digit][n] : std::ceil(static_cast<double>(n) / m_digits);
}

double
TokenEstimator::repeated(std::size_t n) const
{
    return n < k_table ? m_run[k_punct][n] : std::ceil(static_cast<double>(n) / m_repeat);
}

std::size_t
TokenEstimator::ascii_runs(const unsigned char* p, const unsigned char* end, double& tokens,
                           std::size_t& punct) const
{
#if defined(__SSE2__)
    const RunWindow w = load_window(p, end);
    // Runs are priced up to the first non-ASCII byte or the end of the text;
    // in a full window the last run may go on past it and is left for later.
    const std::size_t stop =
        w.high != 0 ? static_cast<std::size_t>(__builtin_ctzll(w.high)) : w.width;
    std::uint64_t runs = 0;   // the starts of the runs priced here
    std::uint64_t bounds = 0; // where they start and end
    std::size_t done = 0;
    if (stop < 64) {
        runs = w.starts & ((std::uint64_t{1} << stop) - 1);
        bounds = runs | (std::uint64_t{1} << stop);
        done = stop;
    } else {
        done = 63 - static_cast<std::size_t>(__builtin_clzll(w.starts)); // the last run's start
        runs = w.starts & ((std::uint64_t{1} << done) - 1);
        bounds = w.starts;
    }
    if (done == 0) {
        return 0;
    }
    // Runs of one byte that add nothing: a lone punctuation mark (counted
    // apart) and a lone space before a word (merged into the word's token).
    const std::uint64_t single = runs & (bounds >> 1);
    const std::uint64_t marks = single & w.punct;
    const std::uint64_t merged = single & w.blank & (w.word >> 1);
    punct += static_cast<std::size_t>(__builtin_popcountll(marks));
    // The others are added in text order, as the byte-at-a-time walk does.
    for (std::uint64_t priced = runs & ~(marks | merged); priced != 0; priced &= priced - 1) {
        const auto s = static_cast<unsigned>(__builtin_ctzll(priced));
        const auto n = static_cast<unsigned>(__builtin_ctzll(bounds >> (s + 1))) + 1;
        tokens += m_run[k_classes[p[s]]][n];
    }
    return done;
#else
    (void)p;
    (void)end;
    (void)tokens;
    (void)punct;
    return 0;
#endif
}

double
TokenEstimator::text(std::string_view utf8) const
{
    const auto* p = reinterpret_cast<const unsigned char*>(utf8.data());
    const auto* const end = p + utf8.size();
    double tokens = 0;
    std::size_t punct = 0;
    std::size_t cjk = 0;
    std::size_t other = 0;
    while (p < end) {
        if (const std::size_t done = ascii_runs(p, end, tokens, punct); done > 0) {
            p += done;
            continue;
        }
        // One run longer than a window, or a non-ASCII character.
        const unsigned char cls = k_classes[*p];
        const auto* start = p;
        if (cls == k_letter || cls == k_digit || cls == k_space) {
            while (p < end && k_classes[*p] == cls) {
                ++p;
            }
            const auto n = static_cast<std::size_t>(p - start);
            if (cls == k_letter) {
                tokens += letters(n);
            } else if (cls == k_digit) {
                tokens += digits(n);
            } else {
                // A lone space before a word merges into the word's token.
                const bool merges = n == 1 && *start == ' ' && p < end &&
                                    (k_classes[*p] == k_letter || k_classes[*p] == k_digit);
                if (!merges) {
                    tokens += m_space_run;
                }
            }
        } else if (cls == k_punct) {
            // A run of one repeated character ("=====", "....") merges into
            // few tokens; mixed punctuation costs per character.
            const unsigned char c = *p;
            while (p < end && *p == c) {
                ++p;
            }
            const auto n = static_cast<std::size_t>(p - start);
            if (n == 1) {
                ++punct;
            } else {
                tokens += repeated(n);
            }
        } else {
            // Decode just enough UTF-8 to tell CJK from other scripts; the
            // input was validated when it was parsed.
            std::uint32_t cp = 0;
            int len = 1;
            if ((*p & 0xE0) == 0xC0) {
                cp = *p & 0x1F;
                len = 2;
            } else if ((*p & 0xF0) == 0xE0) {
                cp = *p & 0x0F;
                len = 3;
            } else if ((*p & 0xF8) == 0xF0) {
                cp = *p & 0x07;
                len = 4;
            }
            for (int i = 1; i < len && p + i < end; ++i) {
                cp = (cp << 6) | (p[i] & 0x3F);
            }
            p += len;
            if (is_cjk(cp)) {
                ++cjk;
            } else {
                ++other;
            }
        }
    }
    return tokens + static_cast<double>(punct) / m_punct + static_cast<double>(cjk) * m_cjk +
           static_cast<double>(other) * m_other;
}

namespace {

// Splits `total` tokens over segments[first, last) in proportion to `weight`
// (equally when the weights sum to 0): every share is floor(exact), the
// remainder goes to the largest fractions, ties to the earlier segment, so
// the sum is exact and the result stable. A selection, not a sort: this
// runs for every request.
template <typename Weight>
void
distribute(std::vector<Segment>& segs, const std::vector<std::size_t>& indices, std::int64_t total,
           const Weight& weight)
{
    double sum = 0;
    for (const auto i : indices) {
        sum += weight(segs[i]);
    }
    // Kept between calls: this runs for every request, and twice for most.
    thread_local std::vector<std::pair<double, std::size_t>> fractions;
    fractions.clear();
    std::int64_t assigned = 0;
    for (const auto i : indices) {
        const double exact = sum > 0
                                 ? static_cast<double>(total) * weight(segs[i]) / sum
                                 : static_cast<double>(total) / static_cast<double>(indices.size());
        segs[i].tokens = static_cast<std::int64_t>(std::floor(exact));
        segs[i].token_source = TokenSource::calibrated;
        assigned += segs[i].tokens;
        fractions.emplace_back(exact - static_cast<double>(segs[i].tokens), i);
    }
    const auto remainder = static_cast<std::size_t>(std::max<std::int64_t>(0, total - assigned));
    const auto larger = [](const auto& a, const auto& b) {
        return a.first > b.first || (a.first == b.first && a.second < b.second);
    };
    if (remainder > 0 && remainder < fractions.size()) {
        std::nth_element(fractions.begin(),
                         fractions.begin() + static_cast<std::ptrdiff_t>(remainder) - 1,
                         fractions.end(), larger);
    }
    for (std::size_t k = 0; k < std::min(remainder, fractions.size()); ++k) {
        ++segs[fractions[k].second].tokens;
    }
}

void
accumulate(std::vector<Segment>& segs)
{
    std::int64_t cumulative = 0;
    for (auto& s : segs) {
        cumulative += s.tokens;
        s.cumulative_tokens = cumulative;
    }
}

float
estimate_of(const Segment& s)
{
    return s.estimate;
}

// What a reported total leaves above the exact counts is what the log cannot
// show: OpenAI's hidden system tokens, or a provider's own rendering of the
// tool definitions (tokenizers manifest, templates: the residual is a few
// tokens without tools and hundreds with them, on DeepSeek's recorded logs).
// It goes to the tool definitions among `indices`, in proportion to their
// counts, else to the first of them (hidden tokens precede the prompt). The
// segments that take it count as calibrated. Returns what they were told.
std::string
book_residual(std::vector<Segment>& segs, const std::vector<std::size_t>& indices,
              std::int64_t residual)
{
    thread_local std::vector<std::size_t> tools;
    tools.clear();
    for (const auto i : indices) {
        if (segs[i].kind == SegmentKind::tool) {
            tools.push_back(i);
        }
    }
    if (tools.empty() || residual < 0) {
        auto& first = segs[indices.front()];
        first.tokens = std::max<std::int64_t>(0, first.tokens + residual);
        first.token_source = TokenSource::calibrated;
        return "booked to the first segment";
    }
    std::int64_t counted = 0;
    for (const auto i : tools) {
        counted += segs[i].tokens;
    }
    distribute(segs, tools, counted + residual, estimate_of);
    return "booked to the " +
           (tools.size() == 1 ? std::string("tool definition")
                              : std::to_string(tools.size()) + " tool definitions") +
           ", which the provider renders in its own format";
}

// Counts from the model's tokenizer (token_source exact on every logged
// segment) are kept as they are. A reported total they do not reach goes to
// the unlogged segment when there is one, else as book_residual says, and a
// note gives the difference.
bool
assign_exact(Request& request, const std::vector<std::size_t>& logged, std::size_t unlogged,
             std::optional<std::int64_t> total)
{
    auto& segs = request.segments;
    if (logged.empty() || !std::all_of(logged.begin(), logged.end(), [&](std::size_t i) {
            return segs[i].token_source == TokenSource::exact;
        })) {
        return false;
    }
    std::int64_t sum = 0;
    for (const auto i : logged) {
        segs[i].tokens = round_estimate(segs[i].estimate);
        sum += segs[i].tokens;
    }
    request.counted_with_residual = false;
    if (unlogged < segs.size()) {
        segs[unlogged].tokens = total ? std::max<std::int64_t>(0, *total - sum) : 0;
        segs[unlogged].token_source = total ? TokenSource::inferred : TokenSource::estimated;
    } else if (total && *total != sum) {
        const std::int64_t residual = *total - sum;
        const std::string where = book_residual(segs, logged, residual);
        request.notes.push_back("exact count " + std::to_string(sum) + " vs reported " +
                                std::to_string(*total) + ": " + std::to_string(residual) +
                                " tokens the log does not show, " + where);
        request.counted_with_residual = true;
    }
    accumulate(segs);
    return true;
}

} // namespace

void
assign_tokens(Request& request)
{
    auto& segs = request.segments;
    const std::optional<std::int64_t> total =
        request.usage ? request.usage->total_input() : std::nullopt;

    thread_local std::vector<std::size_t> logged; // kept between calls, as distribute's
    logged.clear();
    std::size_t unlogged = segs.size();
    for (std::size_t i = 0; i < segs.size(); ++i) {
        if (segs[i].kind == SegmentKind::unlogged) {
            unlogged = i;
        } else {
            logged.push_back(i);
        }
    }
    if (assign_exact(request, logged, unlogged, total)) {
        return;
    }
    const auto round_all = [&](TokenSource source) {
        for (auto i : logged) {
            segs[i].tokens = round_estimate(segs[i].estimate);
            segs[i].token_source = source;
        }
    };

    if (!total) {
        round_all(TokenSource::estimated);
        if (unlogged < segs.size()) {
            segs[unlogged].tokens = 0; // unknown: nothing reports it
            segs[unlogged].token_source = TokenSource::estimated;
        }
    } else {
        const std::int64_t target = total.value_or(0); // GCC 12 misreads target here
        bool scale = true;
        if (unlogged < segs.size()) {
            // The unlogged part takes the remainder unless the logged part
            // alone already exceeds the total (then the estimates are scaled).
            std::int64_t rounded = 0;
            for (auto i : logged) {
                rounded += round_estimate(segs[i].estimate);
            }
            if (rounded <= target) {
                round_all(TokenSource::estimated);
                segs[unlogged].tokens = target - rounded;
                segs[unlogged].token_source = TokenSource::inferred;
                scale = false;
            } else {
                segs[unlogged].tokens = 0;
                segs[unlogged].token_source = TokenSource::inferred;
            }
        }
        if (scale && !logged.empty()) {
            double estimated = 0;
            for (auto i : logged) {
                estimated += segs[i].estimate;
            }
            if (estimated > 0) {
                request.token_scale = static_cast<double>(target) / estimated;
            }
            distribute(segs, logged, target, estimate_of);
        }
    }
    accumulate(segs);
}

bool
counted_exactly(const Request& request)
{
    bool any = false;
    for (const auto& s : request.segments) {
        if (s.kind == SegmentKind::unlogged) {
            continue;
        }
        if (s.token_source != TokenSource::exact) {
            return false;
        }
        any = true;
    }
    return any;
}

namespace {

// The residual note of assign_exact, told where the residual went after all.
void
rewrite_residual_note(Request& request, const std::string& where)
{
    for (auto& note : request.notes) {
        if (note.starts_with("exact count ")) {
            note = note.substr(0, note.find(" tokens the log does not show")) +
                   " tokens the log does not show, " + where;
        }
    }
}

// calibrate_from_prefix for a request counted exactly but for a residual:
// after the pinned prefix, the exact counts stay and what the total leaves
// goes to the tool definitions among the rest (book_residual). False, and
// nothing changed, where that does not fit.
bool
rebook_after_prefix(Request& request, const Request& source, std::size_t shared, std::int64_t total)
{
    auto& segs = request.segments;
    std::vector<std::size_t> rest;
    std::int64_t counted = 0;
    for (std::size_t i = shared; i < segs.size(); ++i) {
        rest.push_back(i);
        counted += round_estimate(segs[i].estimate);
    }
    const std::int64_t residual = total - source.segments[shared - 1].cumulative_tokens - counted;
    const bool tools = std::any_of(
        rest.begin(), rest.end(), [&](std::size_t i) { return segs[i].kind == SegmentKind::tool; });
    // Without a tool definition after the prefix, nothing says where the
    // residual sits (the first segment after a prefix is not the prompt's
    // start): the rest is scaled, as for estimates.
    if (residual < 0 || (residual > 0 && !tools)) {
        return false;
    }
    for (std::size_t i = 0; i < shared; ++i) {
        segs[i].tokens = source.segments[i].tokens;
        segs[i].token_source = source.segments[i].token_source;
    }
    for (const auto i : rest) {
        segs[i].tokens = round_estimate(segs[i].estimate);
        segs[i].token_source = TokenSource::exact;
    }
    rewrite_residual_note(request, residual > 0
                                       ? "after the prefix shared with an earlier request, " +
                                             book_residual(segs, rest, residual)
                                       : "all of them inside the prefix shared with an "
                                         "earlier request");
    accumulate(segs);
    return true;
}

} // namespace

bool
calibrate_from_prefix(Request& request, const Request& source, std::size_t shared)
{
    auto& segs = request.segments;
    // Exact counts need no help from a partner: equal content, equal count.
    if (counted_exactly(request)) {
        return false;
    }
    shared = std::min({shared, segs.size(), source.segments.size()});
    if (shared == 0 || !request.usage || !request.usage->total_input()) {
        return false;
    }
    const std::int64_t total = *request.usage->total_input();
    // A reported total below the shared prefix's count (a provider that
    // counts the history differently from one turn to the next) pins only
    // the part of the prefix it can hold: the evidence wins over the partner.
    while (shared > 0 && source.segments[shared - 1].cumulative_tokens > total) {
        --shared;
    }
    if (shared == 0) {
        return false;
    }
    const std::int64_t pinned = source.segments[shared - 1].cumulative_tokens;
    const std::int64_t rest = total - pinned;
    double estimate = 0;
    for (std::size_t i = shared; i < segs.size(); ++i) {
        estimate += segs[i].estimate;
    }
    if (rest < 0 || (rest > 0 && shared == segs.size()) || (rest > 0 && estimate <= 0)) {
        return false;
    }
    if (request.counted_with_residual) {
        if (rebook_after_prefix(request, source, shared, total)) {
            return true;
        }
        rewrite_residual_note(request, "the prefix shared with an earlier request keeps that "
                                       "request's counts and the segments after it are scaled "
                                       "to the reported total");
    }
    for (std::size_t i = 0; i < shared; ++i) {
        segs[i].tokens = source.segments[i].tokens;
        segs[i].token_source = source.segments[i].token_source;
    }
    std::vector<std::size_t> rest_indices;
    for (std::size_t i = shared; i < segs.size(); ++i) {
        rest_indices.push_back(i);
    }
    distribute(segs, rest_indices, rest, estimate_of);
    accumulate(segs);
    return true;
}

} // namespace cachewise::model
