#include "advise/rewrite.hpp"

#include "advise/source_map.hpp"

#include <fmt/format.h>

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

} // namespace

std::string
unified_diff(std::string_view before, std::string_view after, std::string_view name_before,
             std::string_view name_after)
{
    const auto a = lines_of(before);
    const auto b = lines_of(after);
    // Longest common subsequence of lines (inputs are requests and logs whose
    // rewrites change lines in place, so the table stays small in practice).
    const std::size_t n = a.size();
    const std::size_t m = b.size();
    struct Op {
        char kind; // ' ', '-', '+'
        std::size_t a;
        std::size_t b;
    };
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
    } else {
        // Longest common subsequence of lines.
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
    }
    std::string out;
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
        std::size_t a_count = 0;
        std::size_t b_count = 0;
        for (std::size_t x = start; x < end; ++x) {
            a_count += ops[x].kind != '+' ? 1 : 0;
            b_count += ops[x].kind != '-' ? 1 : 0;
        }
        out += fmt::format("@@ -{},{} +{},{} @@\n", ops[start].a + 1, a_count, ops[start].b + 1,
                           b_count);
        for (std::size_t x = start; x < end; ++x) {
            const auto& op = ops[x];
            out += op.kind;
            out += std::string(op.kind == '+' ? b[op.b] : a[op.a]);
            out += '\n';
        }
        k = end;
    }
    return out;
}

} // namespace cachewise::advise
