#include "advise/rewrite.hpp"

#include "util/format.hpp"
#include "util/redact.hpp"
#include "util/source_map.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace cachewise::advise {

namespace {

struct Edit {
    std::size_t begin;
    std::size_t end; // bytes [begin, end) replaced
    std::string text;
};

std::string
marker(const model::CacheControl& cc)
{
    return cc.ttl == model::Ttl::one_hour ? R"("cache_control":{"type":"ephemeral","ttl":"1h"})"
                                          : R"("cache_control":{"type":"ephemeral"})";
}

std::string
join(const std::string& root, const std::string& path)
{
    return root.empty() ? path : root + "." + path;
}

// The bytes of member `key` of the object at `object_path`, with the comma
// that separates it from a neighbour, so cutting them leaves valid JSON.
std::optional<Edit>
cut_member(const SourceMap& map, const std::string& object_path, const std::string& key)
{
    const auto* object = map.find(object_path);
    const auto* value = map.find(object_path.empty() ? key : object_path + "." + key);
    if (object == nullptr || value == nullptr) {
        return std::nullopt;
    }
    const std::string_view t = map.text();
    // Back from the value to the key's opening quote.
    std::size_t begin = value->begin;
    while (begin > object->begin && t[begin] != '"') {
        --begin;
    }
    if (begin > object->begin) {
        --begin; // the quote that closes the key
        while (begin > object->begin && t[begin] != '"') {
            --begin;
        }
    }
    std::size_t end = value->end;
    // Prefer the comma before; the first member takes the comma after.
    std::size_t before = begin;
    while (before > object->begin && (t[before - 1] == ' ' || t[before - 1] == '\n' ||
                                      t[before - 1] == '\r' || t[before - 1] == '\t')) {
        --before;
    }
    if (before > object->begin && t[before - 1] == ',') {
        return Edit{before - 1, end, ""};
    }
    std::size_t after = end;
    while (after < object->end &&
           (t[after] == ' ' || t[after] == '\n' || t[after] == '\r' || t[after] == '\t')) {
        ++after;
    }
    if (after < object->end && t[after] == ',') {
        ++after;
        while (after < object->end &&
               (t[after] == ' ' || t[after] == '\n' || t[after] == '\r' || t[after] == '\t')) {
            ++after;
        }
        return Edit{begin, after, ""};
    }
    return Edit{begin, end, ""};
}

} // namespace

std::optional<std::string>
rewrite_request(std::string_view text, const std::string& root, const model::Request& request,
                const std::vector<model::Breakpoint>& wanted)
{
    // Converse marks a cache point with a block of its own ({"cachePoint":
    // ...}, rules §1.10), not with a member of the block: not rewritten here.
    if (request.format == model::ApiFormat::bedrock_converse) {
        return std::nullopt;
    }
    const auto map = SourceMap::build(text);
    if (!map) {
        return std::nullopt;
    }
    std::vector<Edit> edits;
    if (request.auto_cache_control) {
        if (auto cut = cut_member(*map, root, "cache_control")) {
            edits.push_back(*cut);
        }
    }
    for (std::size_t i = 0; i < request.segments.size(); ++i) {
        const auto& s = request.segments[i];
        std::optional<model::CacheControl> want;
        for (const auto& b : wanted) {
            if (b.segment == i) {
                want = b.cache_control;
            }
        }
        if (want == s.cache_control || s.kind == model::SegmentKind::unlogged) {
            continue;
        }
        const std::string path = join(root, s.path.str());
        const auto* span = map->find(path);
        if (span == nullptr) {
            return std::nullopt;
        }
        if (s.path.whole_content) {
            if (!want) {
                continue; // a plain string carries no marker to remove
            }
            // "content": "text" becomes the text block it stands for.
            const std::string raw(text.substr(span->begin, span->end - span->begin));
            edits.push_back(
                Edit{span->begin, span->end,
                     fmt::format(R"([{{"type":"text","text":{},{}}}])", raw, marker(*want))});
            continue;
        }
        if (text[span->begin] != '{') {
            return std::nullopt;
        }
        if (s.cache_control) {
            auto cut = cut_member(*map, path, "cache_control");
            if (!cut) {
                return std::nullopt; // a nested marker (tool_result content): leave the request
                                     // alone
            }
            if (want) {
                // Replace the old marker's value in place.
                const auto* value = map->find(path + ".cache_control");
                edits.push_back(Edit{value->begin, value->end, marker(*want).substr(16)});
            } else {
                edits.push_back(*cut);
            }
            continue;
        }
        // Append before the closing brace, after any whitespace that precedes it.
        std::size_t close = span->end - 1;
        std::size_t insert = close;
        while (insert > span->begin + 1 && (text[insert - 1] == ' ' || text[insert - 1] == '\n' ||
                                            text[insert - 1] == '\r' || text[insert - 1] == '\t')) {
            --insert;
        }
        const bool empty = insert == span->begin + 1;
        edits.push_back(Edit{insert, insert, (empty ? "" : ",") + marker(*want)});
    }
    std::sort(edits.begin(), edits.end(),
              [](const Edit& a, const Edit& b) { return a.begin > b.begin; });
    std::string out(text);
    for (const auto& e : edits) {
        out.replace(e.begin, e.end - e.begin, e.text);
    }
    return out;
}

namespace {

std::vector<std::string_view>
lines_of(std::string_view text)
{
    std::vector<std::string_view> out;
    std::size_t begin = 0;
    while (begin < text.size()) {
        std::size_t end = text.find('\n', begin);
        if (end == std::string_view::npos) {
            end = text.size();
        }
        out.push_back(text.substr(begin, end - begin));
        begin = end + 1;
    }
    return out;
}

// A diff line of a long record (a 30 KB system prompt on one line) is shown
// around what changed, `from` to `to`, with 40 bytes of context and the
// bytes left out counted, never whole.
constexpr std::size_t k_long_line = 200;
constexpr std::size_t k_line_context = 40;

std::size_t
char_boundary(std::string_view line, std::size_t at)
{
    while (at < line.size() && (static_cast<unsigned char>(line[at]) & 0xC0) == 0x80) {
        ++at;
    }
    return at;
}

// A changed stretch of a line: [from, to) in it.
struct Region {
    std::size_t from = 0;
    std::size_t to = 0;
};

// A long line shown around its changes: each with 40 bytes of context, the
// bytes between them counted, a change itself cut at 200 bytes. A secret the
// cut goes through is masked whole here: cut first, it would lose the prefix
// ("sk-ant-") by which the printer's redaction knows it, and be shown.
std::string
shortened(std::string_view line, const std::vector<Region>& regions)
{
    if (line.size() <= k_long_line || regions.empty()) {
        return std::string(line);
    }
    // One redactor for the line: a key that two windows cut is masked once.
    WindowRedactor redactor(line, 0, line.size(), find_secrets(line));
    std::string out;
    std::size_t shown = 0; // bytes of `line` accounted for so far
    for (const auto& r : regions) {
        const std::size_t from = std::min(r.from, line.size());
        const std::size_t to = std::clamp(r.to, from, std::min(line.size(), from + k_long_line));
        const std::size_t begin =
            char_boundary(line, std::max(shown, from > k_line_context ? from - k_line_context : 0));
        const std::size_t end = char_boundary(line, std::min(line.size(), to + k_line_context));
        if (begin > shown) {
            out += fmt::format("…[{} bytes]…", group_count(begin - shown));
        }
        if (end > begin) {
            out += redactor.piece(begin, end);
        }
        shown = std::max(shown, end);
    }
    if (shown < line.size()) {
        out += fmt::format("…[{} bytes]…", group_count(line.size() - shown));
    }
    return out;
}

// The line of `others` that shares the longest prefix with `line`: the other
// side of its change.
std::string_view
closest_line(std::string_view line, const std::vector<std::string_view>& others)
{
    std::size_t best_prefix = 0;
    std::string_view partner;
    for (const auto other : others) {
        std::size_t p = 0;
        while (p < line.size() && p < other.size() && line[p] == other[p]) {
            ++p;
        }
        if (p >= best_prefix) {
            best_prefix = p;
            partner = other;
        }
    }
    return partner;
}

// Diagonal k's slot in Myers' V array (k runs from -offset to offset).
std::size_t
diagonal_index(int k, int offset)
{
    return static_cast<std::size_t>(static_cast<std::ptrdiff_t>(k) + offset);
}

// Walks Myers' trace back from its end on diagonal k and returns the stretches of the
// first text that an edit touches (an insertion is an empty stretch where it
// goes), adjacent edits joined, shifted by `base`.
std::vector<Region>
backtrack_regions(const std::vector<std::vector<int>>& trace, int k, int offset, std::size_t base)
{
    std::vector<Region> edits;
    for (int d = static_cast<int>(trace.size()) - 1; d > 0; --d) {
        const auto& v = trace[static_cast<std::size_t>(d)];
        const auto at = [&](int kk) { return v[diagonal_index(kk, offset)]; };
        const bool down = k == -d || (k != d && at(k - 1) < at(k + 1));
        const int prev_k = down ? k + 1 : k - 1;
        const int prev_x = at(prev_k);
        const auto p = base + static_cast<std::size_t>(prev_x);
        edits.push_back(down ? Region{p, p} : Region{p, p + 1});
        k = prev_k;
    }
    std::reverse(edits.begin(), edits.end());
    std::vector<Region> out;
    for (const auto& e : edits) {
        if (!out.empty() && e.from <= out.back().to) {
            out.back().to = std::max(out.back().to, e.to);
        } else {
            out.push_back(e);
        }
    }
    return out;
}

// Where `a` and `b` differ, as stretches of `a`, by Myers' O(ND) byte diff
// (rewrites add or move a few markers in a long line, so D stays small).
// Past k_max_edits edits, one stretch from the first to the last difference.
constexpr int k_max_edits = 1024;

std::vector<Region>
diff_regions(std::string_view a, std::string_view b)
{
    std::size_t prefix = 0;
    while (prefix < a.size() && prefix < b.size() && a[prefix] == b[prefix]) {
        ++prefix;
    }
    std::size_t suffix = 0;
    while (suffix < a.size() - prefix && suffix < b.size() - prefix &&
           a[a.size() - 1 - suffix] == b[b.size() - 1 - suffix]) {
        ++suffix;
    }
    const Region whole{prefix, a.size() - suffix};
    const std::string_view x = a.substr(prefix, a.size() - prefix - suffix);
    const std::string_view y = b.substr(prefix, b.size() - prefix - suffix);
    const int n = static_cast<int>(x.size());
    const int m = static_cast<int>(y.size());
    if (n + m == 0) {
        return {};
    }
    const int max_d = std::min(n + m, k_max_edits);
    const int offset = max_d + 1;
    std::vector<int> v(static_cast<std::size_t>(2 * offset + 1), 0);
    std::vector<std::vector<int>> trace;
    for (int d = 0; d <= max_d; ++d) {
        trace.push_back(v);
        for (int k = -d; k <= d; k += 2) {
            const auto at = [&](int kk) -> int& { return v[diagonal_index(kk, offset)]; };
            int i = (k == -d || (k != d && at(k - 1) < at(k + 1))) ? at(k + 1) : at(k - 1) + 1;
            int j = i - k;
            while (i < n && j < m &&
                   x[static_cast<std::size_t>(i)] == y[static_cast<std::size_t>(j)]) {
                ++i;
                ++j;
            }
            at(k) = i;
            if (i >= n && j >= m) {
                return backtrack_regions(trace, k, offset, prefix);
            }
        }
    }
    return {whole};
}

// Where `line` differs from the other side of its change; its head when it
// has none (a line only added or only removed).
std::vector<Region>
changed_regions(std::string_view line, const std::vector<std::string_view>& others)
{
    if (line.size() <= k_long_line) {
        return {};
    }
    const std::string_view partner = closest_line(line, others);
    if (partner.data() == nullptr) {
        return {Region{}};
    }
    return diff_regions(line, partner);
}

// The JSON path of byte `offset` of `text`, or of byte `column` of `line`
// when the text is not one JSON value (an exchange log, one record a line).
std::string
path_of_change(const std::optional<SourceMap>& whole, std::string_view text, std::string_view line,
               std::size_t column)
{
    if (whole) {
        return whole->path_at(static_cast<std::size_t>(line.data() - text.data()) + column);
    }
    const auto record = SourceMap::build(line);
    return record ? record->path_at(column) : std::string();
}

// The source map of the text before the rewrite, built when a long line
// first needs it (logs are not one JSON value: then it stays empty).
struct DocumentMap {
    std::string_view text;
    std::optional<SourceMap> map;
    bool built = false;

    const std::optional<SourceMap>& get()
    {
        if (!built) {
            map = SourceMap::build(text);
            built = true;
        }
        return map;
    }
};

struct DiffLine {
    char kind; // ' ', '-', '+'
    std::string_view text;
};

// One hunk: its header, with the JSON path of a change in a long line, and
// its lines, long ones shown around their change.
std::string
render_hunk(const std::vector<DiffLine>& hunk, std::size_t a_start, std::size_t b_start,
            DocumentMap& document)
{
    std::vector<std::string_view> removed;
    std::vector<std::string_view> added;
    for (const auto& l : hunk) {
        if (l.kind == '-') {
            removed.push_back(l.text);
        } else if (l.kind == '+') {
            added.push_back(l.text);
        }
    }
    const std::size_t a_count = hunk.size() - added.size();
    const std::size_t b_count = hunk.size() - removed.size();
    std::string where;
    if (!removed.empty() && removed.front().size() > k_long_line) {
        // Every change of the line is named: "tools[0], system[1]".
        for (const auto& r : changed_regions(removed.front(), added)) {
            const auto path =
                path_of_change(document.get(), document.text, removed.front(), r.from);
            if (!path.empty() && where.find(path) == std::string::npos) {
                where += where.empty() ? path : ", " + path;
            }
        }
    }
    std::string out = fmt::format("@@ -{},{} +{},{} @@{}{}\n", a_start, a_count, b_start, b_count,
                                  where.empty() ? "" : " ", where);
    for (const auto& l : hunk) {
        out += l.kind;
        out += l.kind == ' '
                   ? shortened(l.text, {Region{}})
                   : shortened(l.text, changed_regions(l.text, l.kind == '+' ? removed : added));
        out += '\n';
    }
    return out;
}

// A line of the edit script: kept (' '), removed ('-') or added ('+'), with
// its index in each side.
struct Op {
    char kind;
    std::size_t a;
    std::size_t b;
};

// The edit script from lines `a` to lines `b`.
std::vector<Op>
line_ops(const std::vector<std::string_view>& a, const std::vector<std::string_view>& b)
{
    const std::size_t n = a.size();
    const std::size_t m = b.size();
    std::vector<Op> ops;
    if (n == m) {
        // Rewrites change lines in place: pair them up, no search needed
        // (this keeps multi-gigabyte logs linear).
        for (std::size_t i = 0; i < n; ++i) {
            if (a[i] == b[i]) {
                ops.push_back({' ', i, i});
            } else {
                ops.push_back({'-', i, i});
                ops.push_back({'+', i + 1, i});
            }
        }
        return ops;
    }
    // Longest common subsequence of lines (inputs are requests and logs whose
    // rewrites change lines in place, so the table stays small in practice).
    std::vector<std::vector<std::uint32_t>> lcs(n + 1, std::vector<std::uint32_t>(m + 1, 0));
    for (std::size_t i = n; i-- > 0;) {
        for (std::size_t j = m; j-- > 0;) {
            lcs[i][j] =
                a[i] == b[j] ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
        }
    }
    std::size_t i = 0;
    std::size_t j = 0;
    while (i < n || j < m) {
        if (i < n && j < m && a[i] == b[j]) {
            ops.push_back({' ', i++, j++});
        } else if (j < m && (i == n || lcs[i][j + 1] >= lcs[i + 1][j])) {
            ops.push_back({'+', i, j++});
        } else {
            ops.push_back({'-', i++, j});
        }
    }
    return ops;
}

} // namespace

std::string
unified_diff(std::string_view before, std::string_view after, std::string_view name_before,
             std::string_view name_after)
{
    const auto a = lines_of(before);
    const auto b = lines_of(after);
    const std::vector<Op> ops = line_ops(a, b);
    std::string out;
    DocumentMap document;
    document.text = before;
    constexpr std::size_t k_context = 3;
    std::size_t k = 0;
    bool header = false;
    while (k < ops.size()) {
        if (ops[k].kind == ' ') {
            ++k;
            continue;
        }
        // A hunk: context before, changes, context after, merged while close.
        std::size_t start = k >= k_context ? k - k_context : 0;
        std::size_t end = k;
        while (end < ops.size()) {
            if (ops[end].kind != ' ') {
                ++end;
                continue;
            }
            std::size_t run = end;
            while (run < ops.size() && ops[run].kind == ' ') {
                ++run;
            }
            if (run == ops.size() || run - end > 2 * k_context) {
                end = std::min(run, end + k_context);
                break;
            }
            end = run;
        }
        if (!header) {
            out += fmt::format("--- {}\n+++ {}\n", name_before, name_after);
            header = true;
        }
        std::vector<DiffLine> hunk;
        for (std::size_t x = start; x < end; ++x) {
            hunk.push_back({ops[x].kind, ops[x].kind == '+' ? b[ops[x].b] : a[ops[x].a]});
        }
        out += render_hunk(hunk, ops[start].a + 1, ops[start].b + 1, document);
        k = end;
    }
    return out;
}

} // namespace cachewise::advise
