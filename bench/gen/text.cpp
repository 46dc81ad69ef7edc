#include "gen/text.hpp"

#include "gen/json_out.hpp"

#include <fmt/format.h>

namespace cachewise::gen {

const std::vector<std::string_view> k_words = {
    "request", "cache",  "prefix",  "token",  "session", "handler",  "buffer", "parser",
    "config",  "module", "index",   "stream", "record",  "segment",  "chain",  "worker",
    "client",  "server", "queue",   "retry",  "timeout", "payload",  "schema", "render",
    "vector",  "string", "options", "result", "error",   "status",   "file",   "path",
    "line",    "column", "offset",  "value",  "number",  "object",   "array",  "field",
    "commit",  "branch", "test",    "build",  "target",  "linker",   "header", "source",
    "layout",  "widget", "router",  "metric", "counter", "latency",  "budget", "account",
    "invoice", "ledger", "tenant",  "shard",  "replica", "snapshot", "cursor", "batch"};
const std::vector<std::string_view> k_verbs = {
    "read",  "update",   "check",  "refactor", "rename", "parse",   "render", "validate", "split",
    "merge", "cache",    "retry",  "flush",    "load",   "compile", "test",   "inspect",  "trace",
    "fix",   "document", "remove", "extract",  "inline", "profile", "review", "format"};
const std::vector<std::string_view> k_unicode = {"café",   "naïve",    "résumé",
                                                 "→",      "“quoted”", "—",
                                                 "…",      "中文注释", "日本語のテキスト",
                                                 "한국어", "Ελληνικά", "Привет",
                                                 "🚀",      "✅",        "❌",
                                                 "⚠️", "µs",       "°C",
                                                 "±0.5",   "≥",        "∑",
                                                 "€12.50", "ß",        "Ω"};
const std::vector<std::string_view> k_exts = {"cpp",  "hpp", "py",   "rs",   "ts", "go",
                                              "json", "md",  "toml", "yaml", "sh", "js"};
const std::vector<std::string_view> k_projects = {"api-gateway", "ledger",      "webapp",
                                                  "cachewise",   "billing-svc", "ml-pipeline",
                                                  "infra",       "docs-site"};

namespace {

const std::vector<std::string_view> k_adjs = {
    "small",  "stable", "explicit", "careful", "short", "local", "pure",  "typed", "bounded",
    "sorted", "lazy",   "shared",   "unique",  "idle",  "stale", "fresh", "empty", "nested"};

std::string
camel(Rng& rng)
{
    std::string s(rng.pick(k_words));
    s[0] = static_cast<char>(s[0] - 'a' + 'A');
    std::string t(rng.pick(k_words));
    t[0] = static_cast<char>(t[0] - 'a' + 'A');
    return s + t;
}

std::string
indent(Rng& rng)
{
    const auto depth = rng.index(5);
    return rng.chance(0.2) ? std::string(depth, '\t') : std::string(depth * 4, ' ');
}

} // namespace

std::string
ident(Rng& rng)
{
    std::string s(rng.pick(k_words));
    if (rng.chance(0.6)) {
        s += '_';
        s += rng.pick(k_words);
    }
    if (rng.chance(0.2)) {
        put_fmt(s, "{}", rng.below(10));
    }
    return s;
}

std::string
sentence(Rng& rng)
{
    switch (rng.below(8)) {
    case 0:
        return fmt::format("When you {} a {}, always {} the {} first.", rng.pick(k_verbs),
                           rng.pick(k_words), rng.pick(k_verbs), rng.pick(k_words));
    case 1:
        return fmt::format("Use the {} tool to {} {}s in the {}; never {} them by hand.",
                           camel(rng), rng.pick(k_verbs), rng.pick(k_words), rng.pick(k_words),
                           rng.pick(k_verbs));
    case 2:
        return fmt::format("IMPORTANT: {} the {} before you {} any {} ({} {}).", rng.pick(k_verbs),
                           rng.pick(k_words), rng.pick(k_verbs), rng.pick(k_words),
                           rng.range(2, 99), rng.pick(k_words));
    case 3:
        return fmt::format("- Keep `{}` {} and the {} {}.", ident(rng), rng.pick(k_adjs),
                           rng.pick(k_words), rng.pick(k_adjs));
    case 4:
        return fmt::format("Prefer {} {}s over {} ones {} they are easier to {}.", rng.pick(k_adjs),
                           rng.pick(k_words), rng.pick(k_adjs), rng.pick(k_unicode),
                           rng.pick(k_verbs));
    case 5:
        return fmt::format("If the user asks about \"{}\", explain how the {} {}s the {}.",
                           rng.pick(k_words), rng.pick(k_words), rng.pick(k_verbs),
                           rng.pick(k_words));
    case 6:
        return fmt::format("I'll {} `{}` in src/{}.{} so that the {} stays {}.", rng.pick(k_verbs),
                           ident(rng), ident(rng), rng.pick(k_exts), rng.pick(k_words),
                           rng.pick(k_adjs));
    default:
        return fmt::format("The {} took {} ms, {} than the {} {}.", rng.pick(k_words),
                           rng.range(1, 5000), rng.chance(0.5) ? "more" : "less", rng.pick(k_adjs),
                           rng.pick(k_words));
    }
}

std::string
prose(Rng& rng, std::size_t target)
{
    std::string s;
    while (s.size() < target) {
        if (!s.empty()) {
            s += rng.chance(0.15) ? "\n\n" : " ";
        }
        if (rng.chance(0.05)) {
            s += fmt::format("# {} {}\n\n", camel(rng), rng.pick(k_words));
        }
        s += sentence(rng);
    }
    return s;
}

namespace {

// One line of a tool result: code in several languages, logs, stack traces,
// compiler output, ANSI colours, Windows paths, JSON in text, tab tables.
std::string
content_line(Rng& rng)
{
    const std::string in = indent(rng);
    switch (rng.below(20)) {
    case 0:
        return fmt::format("{}if ({} == nullptr) {{ return Error{{\"{}: not found\"}}; }}", in,
                           ident(rng), ident(rng));
    case 1:
        return fmt::format("{}const auto {} = {}.find(\"{}\\\\{}\");", in, ident(rng), ident(rng),
                           rng.pick(k_words), rng.pick(k_words));
    case 2:
        return fmt::format("{}std::printf(\"%s:%d: \\\"%s\\\"\\n\", {}, {}, {});", in, ident(rng),
                           rng.range(0, 9999), ident(rng));
    case 3:
        return fmt::format("{}let {}: Vec<u{}> = vec![{}, {}, {}];", in, ident(rng),
                           8 << rng.below(4), rng.range(0, 255), rng.range(0, 65535),
                           rng.range(0, 9));
    case 4:
        return fmt::format("{}def {}(self, {}: str = \"{}\") -> dict:", in, ident(rng), ident(rng),
                           rng.pick(k_words));
    case 5:
        return fmt::format("{}# {} {} {} {}", in, rng.pick(k_verbs), rng.pick(k_unicode),
                           rng.pick(k_words), rng.pick(k_unicode));
    case 6:
        return fmt::format("{}return re.compile(r\"^\\d{{{}}}-[a-z_]+\\.(json|txt)$\")", in,
                           rng.range(1, 9));
    case 7:
        return fmt::format("{}path = \"C:\\\\Users\\\\dev\\\\{}\\\\{}.{}\"", in, ident(rng),
                           rng.pick(k_words), rng.pick(k_exts));
    case 8:
        return fmt::format("{}{}[\"{}\"] = {{\"{}\": {}, \"ok\": true, \"ratio\": {:.4f}}}", in,
                           ident(rng), rng.pick(k_words), ident(rng), rng.range(-100, 100000),
                           rng.unit());
    case 9:
        return in + "}";
    case 10:
        return fmt::format("2025-06-02T09:{:02}:{:02}.{:03}Z INFO  [{}-{}] {}={} latency_ms={:.2f} "
                           "path=\"/api/v1/{}?id={}\"",
                           rng.below(60), rng.below(60), rng.below(1000), rng.pick(k_words),
                           rng.below(16), ident(rng), rng.below(100000), rng.unit() * 900,
                           rng.pick(k_words), rng.below(1000000));
    case 11:
        return fmt::format("\x1b[1;31merror[E0{:03}]\x1b[0m: mismatched types in `{}` "
                           "\x1b[2m(src/{}.rs:{}:{})\x1b[0m",
                           rng.below(1000), ident(rng), ident(rng), rng.range(1, 900),
                           rng.range(1, 80));
    case 12:
        return fmt::format("  File \"/home/dev/{}/{}.py\", line {}, in {}", rng.pick(k_projects),
                           ident(rng), rng.range(1, 2000), ident(rng));
    case 13:
        return fmt::format("    at {}.{} (/srv/app/node_modules/{}/lib/{}.js:{}:{})", camel(rng),
                           ident(rng), rng.pick(k_words), ident(rng), rng.range(1, 3000),
                           rng.range(1, 120));
    case 14:
        return fmt::format("src/{}.{}:{}:{}: warning: unused variable '{}' [-Wunused-variable]",
                           ident(rng), rng.pick(k_exts), rng.range(1, 3000), rng.range(1, 100),
                           ident(rng));
    case 15:
        return fmt::format("test {}::{} ... {} ({:.3f}s)", ident(rng), ident(rng),
                           rng.chance(0.9) ? "ok" : "FAILED", rng.unit() * 3);
    case 16:
        return fmt::format("{}\t{}\t{:.6f}\t{}\t{}", rng.below(1000000), ident(rng),
                           rng.unit() * 1e4, rng.pick(k_words), rng.pick(k_unicode));
    case 17:
        return fmt::format("ERROR: {} failed — “{}” → {} (code={})\r", rng.pick(k_verbs),
                           ident(rng), rng.pick(k_unicode), rng.range(-255, 255));
    case 18:
        return fmt::format(
            "{{\"level\":\"warn\",\"msg\":\"{} {}\",\"ts\":{},\"tags\":[\"{}\",\"{}\"]}}",
            rng.pick(k_verbs), rng.pick(k_words), 1748854800000 + rng.below(100000000),
            rng.pick(k_words), rng.pick(k_unicode));
    default:
        return "";
    }
}

} // namespace

TextPool::TextPool(Rng& rng)
{
    m_lines.reserve(k_size);
    for (std::size_t i = 0; i < k_size; ++i) {
        m_lines.push_back(content_line(rng));
    }
}

std::string
TextPool::text(Rng& rng, std::size_t target, bool numbered) const
{
    std::string s;
    s.reserve(target + 128);
    std::size_t i = rng.index(k_size);
    int n = static_cast<int>(rng.range(1, 400));
    while (s.size() < target) {
        if (!s.empty()) {
            s.push_back('\n');
        }
        if (numbered) {
            put_fmt(s, "{:6}→", n++);
        }
        // Mostly contiguous runs (a file region), sometimes a jump.
        i = rng.chance(0.2) ? rng.index(k_size) : (i + 1) % k_size;
        s += m_lines[i];
    }
    return s;
}

} // namespace cachewise::gen
