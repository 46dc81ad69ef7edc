// cachewise_gen_log: writes large synthetic agent logs for the ingest benchmark.
//
//   cachewise_gen_log --out FILE --size-mb N [--sessions K] [--seed S]
//                     [--format exchange|claude-code|openai] [--ascii] [--split]
//
// The shape follows what a coding agent writes: K sessions interleaved in one
// log; each session keeps a fixed system prompt (6-10 KB of text blocks, the
// last one with cache_control) and 4-8 tool definitions with JSON-schema
// input_schema; its history grows append-only turn after turn (assistant text
// plus 1-4 tool_use blocks, then a user message of tool_result blocks holding
// code and log text with quotes, backslashes, newlines, tabs, ANSI escapes,
// Unicode and digits) with cache_control moving to the last user block; a
// session runs 20-80 turns and then a new one takes its place, until the file
// holds N MB (1 MB = 1,000,000 bytes). The output is a function of the seed.
//
// exchange:    one {"id","session","started_at","first_token_at","ended_at",
//              "request":{...},"response":{...}} record per line; every record
//              repeats the whole history, as proxies log it.
// openai:      the same conversations as exchange records of OpenAI Chat
//              Completions: a system message, tools as functions, assistant
//              tool_calls answered by role "tool" messages, usage with
//              prompt_tokens_details.cached_tokens (GPT-4.1, GPT-5, GPT-4o).
// claude-code: Claude Code transcript lines: one line per content block,
//              chained by parentUuid, every line of a response repeating its
//              requestId and usage, with file-history-snapshot lines (now and
//              then a big one) in between.
//
// --split makes --out a directory with one <session id>.jsonl per session,
// written one session at a time: the layout of ~/.claude/projects/<project>/.
//
// --ascii escapes every non-ASCII character as \uXXXX (surrogate pairs above
// U+FFFF), the way Python's json.dumps writes by default.

#include "util/escape.hpp"
#include "util/splitmix.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iterator>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace {

// ---------------------------------------------------------------------------
// Randomness: splitmix64, so the output depends on the seed alone.

class Rng : public cachewise::SplitMix64 {
public:
    using SplitMix64::SplitMix64;
    std::size_t
    index(std::size_t n)
    {
        return static_cast<std::size_t>(below(n));
    }
    std::int64_t
    range(std::int64_t lo, std::int64_t hi)
    {
        return lo + static_cast<std::int64_t>(below(static_cast<std::uint64_t>(hi - lo + 1)));
    }
    double
    unit()
    {
        return static_cast<double>(next() >> 11) * 0x1.0p-53;
    }
    bool
    chance(double p)
    {
        return unit() < p;
    }
    // Log-uniform in [lo, hi]: many small values, a few large ones.
    std::size_t
    log_uniform(double lo, double hi)
    {
        return static_cast<std::size_t>(lo * std::exp(unit() * std::log(hi / lo)));
    }
    template <typename T>
    const T&
    pick(const std::vector<T>& v)
    {
        return v[index(v.size())];
    }
    template <typename T, std::size_t N>
    const T&
    pick(const std::array<T, N>& v)
    {
        return v[index(N)];
    }
};

// ---------------------------------------------------------------------------
// JSON output.

bool g_ascii = false; // --ascii

constexpr std::array<bool, 256>
make_plain_table(bool ascii)
{
    std::array<bool, 256> t{};
    for (int c = 0; c < 256; ++c) {
        t[static_cast<std::size_t>(c)] =
            c >= 0x20 && c != '"' && c != '\\' && !(ascii && c >= 0x80);
    }
    return t;
}
constexpr auto k_plain_utf8 = make_plain_table(false);
constexpr auto k_plain_ascii = make_plain_table(true);

void
put_u4(std::string& out, unsigned v)
{
    static constexpr char k_hex[] = "0123456789abcdef";
    out += "\\u";
    out.push_back(k_hex[(v >> 12) & 0xF]);
    out.push_back(k_hex[(v >> 8) & 0xF]);
    out.push_back(k_hex[(v >> 4) & 0xF]);
    out.push_back(k_hex[v & 0xF]);
}

// A JSON string literal. The input is valid UTF-8 (this program makes it).
void
put_str(std::string& out, std::string_view s)
{
    const auto& plain = g_ascii ? k_plain_ascii : k_plain_utf8;
    out.push_back('"');
    const auto* p = reinterpret_cast<const unsigned char*>(s.data());
    const auto* const end = p + s.size();
    while (p < end) {
        const auto* run = p;
        while (p < end && plain[*p]) {
            ++p;
        }
        out.append(reinterpret_cast<const char*>(run), static_cast<std::size_t>(p - run));
        if (p == end) {
            break;
        }
        const unsigned c = *p;
        if (c >= 0x80) {
            unsigned cp = 0;
            int len = 1;
            if ((c & 0xE0) == 0xC0) {
                cp = c & 0x1F;
                len = 2;
            } else if ((c & 0xF0) == 0xE0) {
                cp = c & 0x0F;
                len = 3;
            } else {
                cp = c & 0x07;
                len = 4;
            }
            for (int i = 1; i < len; ++i) {
                cp = (cp << 6) | (p[i] & 0x3Fu);
            }
            p += len;
            if (cp >= 0x10000) {
                cp -= 0x10000;
                put_u4(out, 0xD800 + (cp >> 10));
                put_u4(out, 0xDC00 + (cp & 0x3FF));
            } else {
                put_u4(out, cp);
            }
            continue;
        }
        ++p;
        if (const std::string_view e = cachewise::json_short_escape(static_cast<unsigned char>(c));
            !e.empty()) {
            out += e;
        } else {
            put_u4(out, c);
        }
    }
    out.push_back('"');
}

template <typename... Args>
void
put_fmt(std::string& out, fmt::format_string<Args...> f, Args&&... args)
{
    fmt::format_to(std::back_inserter(out), f, std::forward<Args>(args)...);
}

// RFC 3339 UTC with milliseconds, from epoch seconds.
void
put_time(std::string& out, double t)
{
    const auto ms_total = static_cast<std::int64_t>(t * 1000.0);
    const std::int64_t secs = ms_total / 1000;
    const std::int64_t ms = ms_total % 1000;
    std::int64_t z = secs / 86400 + 719468; // civil_from_days (H. Hinnant)
    const std::int64_t rem = secs % 86400;
    const std::int64_t era = z / 146097;
    const std::int64_t doe = z - era * 146097;
    const std::int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    const std::int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    const std::int64_t mp = (5 * doy + 2) / 153;
    const std::int64_t d = doy - (153 * mp + 2) / 5 + 1;
    const std::int64_t m = mp < 10 ? mp + 3 : mp - 9;
    const std::int64_t y = yoe + era * 400 + (m <= 2 ? 1 : 0);
    put_fmt(out, "\"{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z\"", y, m, d, rem / 3600,
            rem / 60 % 60, rem % 60, ms);
}

std::string
uuid(Rng& rng)
{
    const std::uint64_t a = rng.next();
    const std::uint64_t b = rng.next();
    return fmt::format("{:08x}-{:04x}-4{:03x}-{:04x}-{:012x}", a >> 32, (a >> 16) & 0xFFFF,
                       a & 0xFFF, 0x8000 | ((b >> 48) & 0x3FFF), b & 0xFFFFFFFFFFFFULL);
}

std::string
base62_id(Rng& rng, std::string_view prefix, int n)
{
    static constexpr char k_alphabet[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    std::string s(prefix);
    for (int i = 0; i < n; ++i) {
        s.push_back(k_alphabet[rng.below(62)]);
    }
    return s;
}

// ---------------------------------------------------------------------------
// Text: prose for prompts and replies, code and log lines for tool results.

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
const std::vector<std::string_view> k_adjs = {
    "small",  "stable", "explicit", "careful", "short", "local", "pure",  "typed", "bounded",
    "sorted", "lazy",   "shared",   "unique",  "idle",  "stale", "fresh", "empty", "nested"};
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

// A pool of lines built once; tool results are random runs of it.
class TextPool {
public:
    explicit TextPool(Rng& rng)
    {
        m_lines.reserve(k_size);
        for (std::size_t i = 0; i < k_size; ++i) {
            m_lines.push_back(content_line(rng));
        }
    }

    // About `target` bytes of lines; `numbered` prefixes "   12→" as a file
    // viewer does.
    std::string
    text(Rng& rng, std::size_t target, bool numbered) const
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

private:
    static constexpr std::size_t k_size = 16384;
    std::vector<std::string> m_lines;
};

// ---------------------------------------------------------------------------
// Tools.

enum class ToolKind { bash, read, edit, write, grep, glob, todo, web_fetch, task, ls };

struct Tool {
    ToolKind kind;
    std::string name;
    std::string json; // the whole definition, rendered
};

struct Property {
    std::string_view name;
    std::string_view type;
    bool required;
};

std::vector<Tool>
make_tool_catalog(Rng& rng)
{
    struct Spec {
        ToolKind kind;
        std::string_view name;
        std::vector<Property> props;
    };
    const std::vector<Spec> specs = {
        {ToolKind::bash,
         "Bash",
         {{"command", "string", true},
          {"timeout", "number", false},
          {"description", "string", false},
          {"run_in_background", "boolean", false}}},
        {ToolKind::read,
         "Read",
         {{"file_path", "string", true}, {"offset", "number", false}, {"limit", "number", false}}},
        {ToolKind::edit,
         "Edit",
         {{"file_path", "string", true},
          {"old_string", "string", true},
          {"new_string", "string", true},
          {"replace_all", "boolean", false}}},
        {ToolKind::write, "Write", {{"file_path", "string", true}, {"content", "string", true}}},
        {ToolKind::grep,
         "Grep",
         {{"pattern", "string", true},
          {"path", "string", false},
          {"glob", "string", false},
          {"output_mode", "string", false},
          {"-n", "boolean", false},
          {"head_limit", "number", false}}},
        {ToolKind::glob, "Glob", {{"pattern", "string", true}, {"path", "string", false}}},
        {ToolKind::todo, "TodoWrite", {{"todos", "array", true}}},
        {ToolKind::web_fetch, "WebFetch", {{"url", "string", true}, {"prompt", "string", true}}},
        {ToolKind::task,
         "Task",
         {{"description", "string", true},
          {"prompt", "string", true},
          {"subagent_type", "string", true}}},
        {ToolKind::ls, "LS", {{"path", "string", true}, {"ignore", "array", false}}},
    };
    std::vector<Tool> tools;
    for (const auto& spec : specs) {
        std::string j = "{\"name\":";
        put_str(j, spec.name);
        j += ",\"description\":";
        put_str(j, prose(rng, rng.log_uniform(300, 2500)));
        j += ",\"input_schema\":{\"type\":\"object\",\"properties\":{";
        bool first = true;
        for (const auto& p : spec.props) {
            if (!first) {
                j += ',';
            }
            first = false;
            put_str(j, p.name);
            j += ":{\"type\":";
            put_str(j, p.type);
            if (p.type == "array") {
                j +=
                    R"(,"items":{"type":"object","properties":{"content":{"type":"string","minLength":1},)"
                    R"("status":{"type":"string","enum":["pending","in_progress","completed"]}},)"
                    R"("required":["content","status"],"additionalProperties":false})";
            }
            j += ",\"description\":";
            put_str(j, prose(rng, rng.log_uniform(40, 300)));
            j += '}';
        }
        j += "},\"required\":[";
        first = true;
        for (const auto& p : spec.props) {
            if (p.required) {
                if (!first) {
                    j += ',';
                }
                first = false;
                put_str(j, p.name);
            }
        }
        j +=
            R"(],"additionalProperties":false,"$schema":"http://json-schema.org/draft-07/schema#"}})";
        tools.push_back(Tool{spec.kind, std::string(spec.name), std::move(j)});
    }
    return tools;
}

// ---------------------------------------------------------------------------
// Conversation content, shared by both output formats.

struct Block {
    enum class Kind { text, tool_use, tool_result } kind = Kind::text;
    std::string text;  // text, or the tool result's content
    std::string id;    // tool_use id, or the tool_use_id answered
    std::string name;  // tool name
    std::string input; // tool_use input, rendered JSON
    const Tool* tool = nullptr;
    bool is_error = false;
    bool content_blocks = false; // tool_result content as [{"type":"text",...}]
};

struct Session {
    bool active = false;
    std::string id;
    std::string model;
    int max_tokens = 32000;
    std::string project;
    std::vector<const Tool*> tools;
    std::string tools_json;  // "[...]"
    std::string system_json; // "[...]"
    std::size_t system_bytes = 0;
    int turn = 0;
    int turns = 0;
    std::vector<Block> pending;     // the user message the next request ends with
    std::int64_t cached_tokens = 0; // prompt tokens the previous request left in the cache

    // exchange
    std::string history; // rendered messages, comma-separated

    // openai
    std::string system_text;    // the system prompt, unrendered
    std::string openai_tools;   // "[...]" of {"type":"function","function":{...}}
    std::string openai_system;  // {"role":"system",...}
    std::string openai_history; // rendered messages after the system one, comma-separated

    // claude-code
    std::string cwd;
    std::string branch;
    std::string version;
    std::string last_uuid; // parentUuid of the next line
    std::vector<std::string> user_uuids;
    std::size_t cc_history_bytes = 0;
};

class Generator {
public:
    Generator(std::uint64_t seed, bool claude_code, bool openai = false)
        : m_rng(seed), m_claude_code(claude_code), m_openai(openai), m_pool(m_rng),
          m_tools(make_tool_catalog(m_rng))
    {
        for (int i = 0; i < 3; ++i) {
            m_system_bases.push_back(
                prose(m_rng, static_cast<std::size_t>(m_rng.range(5200, 7800))));
        }
    }

    void
    run(std::FILE* out, std::uint64_t target, std::size_t concurrent)
    {
        m_file = out;
        m_sessions.resize(concurrent);
        m_buf.reserve(k_flush_at + (std::size_t{4} << 20));
        while (m_written + m_buf.size() < target) {
            Session& s = m_sessions[m_rng.index(m_sessions.size())];
            if (!s.active) {
                start_session(s);
            }
            turn(s);
        }
        flush();
    }

    // One turn of a session in the chosen format, flushing when the buffer is full.
    void
    turn(Session& s)
    {
        if (m_claude_code) {
            claude_code_turn(s);
        } else if (m_openai) {
            openai_turn(s);
        } else {
            exchange_turn(s);
        }
        if (m_buf.size() >= k_flush_at) {
            flush();
        }
    }

    // One file per session, as Claude Code keeps its transcripts:
    // <dir>/<session id>.jsonl, one session at a time.
    void
    run_split(const std::string& dir, std::uint64_t target)
    {
        m_sessions.resize(1);
        m_buf.reserve(k_flush_at + (std::size_t{4} << 20));
        Session& s = m_sessions.front();
        while (m_written + m_buf.size() < target) {
            start_session(s);
            const std::string path = fmt::format("{}/{}.jsonl", dir, s.id);
            m_file = std::fopen(path.c_str(), "wb");
            if (m_file == nullptr) {
                throw std::runtime_error(fmt::format("{}: {}", path, std::strerror(errno)));
            }
            while (s.active && m_written + m_buf.size() < target) {
                turn(s);
            }
            flush();
            if (std::fclose(m_file) != 0) {
                m_file = nullptr;
                throw std::runtime_error(fmt::format("{}: {}", path, std::strerror(errno)));
            }
            m_file = nullptr;
        }
    }

    [[nodiscard]] std::uint64_t
    written() const
    {
        return m_written;
    }
    [[nodiscard]] std::uint64_t
    lines() const
    {
        return m_lines;
    }
    [[nodiscard]] std::uint64_t
    sessions() const
    {
        return m_sessions_started;
    }
    [[nodiscard]] std::uint64_t
    requests() const
    {
        return m_requests;
    }

private:
    static constexpr std::size_t k_flush_at = std::size_t{8} << 20;

    void
    flush()
    {
        if (!m_buf.empty() && std::fwrite(m_buf.data(), 1, m_buf.size(), m_file) != m_buf.size()) {
            throw std::runtime_error(fmt::format("write failed: {}", std::strerror(errno)));
        }
        m_written += m_buf.size();
        m_buf.clear();
    }

    void
    start_session(Session& s)
    {
        Rng& r = m_rng;
        s = Session{};
        s.active = true;
        ++m_sessions_started;
        s.id = uuid(r);
        const double m = r.unit();
        s.model = m < 0.7    ? "claude-sonnet-4-5-20250929"
                  : m < 0.85 ? "claude-opus-4-1-20250805"
                             : "claude-haiku-4-5-20251001";
        s.max_tokens = m < 0.85 ? 32000 : 8192;
        s.project = std::string(r.pick(k_projects));
        s.turns = static_cast<int>(r.range(20, 80));

        // 4-8 tools in catalog order; sessions often share a tool set.
        const std::size_t n = static_cast<std::size_t>(r.range(4, 8));
        std::vector<std::size_t> chosen(m_tools.size());
        for (std::size_t i = 0; i < chosen.size(); ++i) {
            chosen[i] = i;
        }
        for (std::size_t i = 0; i < n; ++i) {
            std::swap(chosen[i], chosen[i + r.index(chosen.size() - i)]);
        }
        chosen.resize(n);
        std::sort(chosen.begin(), chosen.end());
        s.tools_json = "[";
        for (const auto i : chosen) {
            s.tools.push_back(&m_tools[i]);
            if (s.tools_json.size() > 1) {
                s.tools_json += ',';
            }
            s.tools_json += m_tools[i].json;
        }
        s.tools_json += ']';

        // System: an identity line, a shared body, then this session's environment.
        std::string env = fmt::format("\n\n<env>\nWorking directory: /home/dev/{}\nIs directory a "
                                      "git repo: Yes\nPlatform: linux\n"
                                      "Today's date: 2025-06-{:02}\n</env>\n\ngitStatus: This is "
                                      "the git status at the start of "
                                      "the conversation.\nCurrent branch: {}\n\nStatus:\n",
                                      s.project, r.range(1, 28), ident(r));
        const auto files = r.range(3, 30);
        for (std::int64_t i = 0; i < files; ++i) {
            put_fmt(env, " {} src/{}/{}.{}\n", r.chance(0.7) ? "M" : "??", ident(r), ident(r),
                    r.pick(k_exts));
        }
        env += "\nRecent commits:\n";
        for (int i = 0; i < 5; ++i) {
            put_fmt(env, "{:07x} {}\n", r.below(0x10000000), sentence(r));
        }
        s.system_json = "[{\"type\":\"text\",\"text\":\"You are Claude Code, Anthropic's official "
                        "CLI for Claude.\"},";
        s.system_json += "{\"type\":\"text\",\"text\":";
        s.system_text = m_system_bases[r.index(m_system_bases.size())] + env;
        put_str(s.system_json, s.system_text);
        s.system_json += ",\"cache_control\":{\"type\":\"ephemeral\"}}]";
        s.system_bytes = s.system_json.size();
        if (m_openai) {
            openai_session(s, m);
        }

        s.cwd = "/home/dev/" + s.project;
        s.branch = r.chance(0.5) ? "main" : fmt::format("feature/{}", ident(r));
        s.version = fmt::format("2.0.{}", r.range(1, 30));

        // The task.
        Block task;
        task.text =
            fmt::format("{} {}\n\nPlease {} `{}` in src/{}.{}; {}", sentence(r), sentence(r),
                        r.pick(k_verbs), ident(r), ident(r), r.pick(k_exts), r.pick(k_unicode));
        if (r.chance(0.5)) {
            task.text += "\n\n```\n" + m_pool.text(r, r.log_uniform(100, 2000), false) + "\n```";
        }
        s.pending.push_back(std::move(task));
    }

    std::string
    tool_input(const Tool& tool, const Session& s)
    {
        Rng& r = m_rng;
        const std::string file = fmt::format("{}/src/{}.{}", s.cwd, ident(r), r.pick(k_exts));
        std::string j = "{";
        switch (tool.kind) {
        case ToolKind::bash:
            j += "\"command\":";
            put_str(j, fmt::format("cd {} && grep -rn \"{}\" src/ | head -{} && cargo test -- "
                                   "--nocapture 2>&1 | tail -n {}",
                                   s.cwd, ident(r), r.range(5, 200), r.range(10, 80)));
            j += ",\"description\":";
            put_str(j, sentence(r));
            put_fmt(j, ",\"timeout\":{}", r.range(1, 10) * 30000);
            break;
        case ToolKind::read:
            j += "\"file_path\":";
            put_str(j, file);
            if (r.chance(0.4)) {
                put_fmt(j, ",\"offset\":{},\"limit\":{}", r.range(1, 2000), r.range(50, 400));
            }
            break;
        case ToolKind::edit:
            j += "\"file_path\":";
            put_str(j, file);
            j += ",\"old_string\":";
            put_str(j, m_pool.text(r, r.log_uniform(40, 1500), false));
            j += ",\"new_string\":";
            put_str(j, m_pool.text(r, r.log_uniform(40, 1500), false));
            if (r.chance(0.2)) {
                j += ",\"replace_all\":true";
            }
            break;
        case ToolKind::write:
            j += "\"file_path\":";
            put_str(j, file);
            j += ",\"content\":";
            put_str(j, m_pool.text(r, r.log_uniform(200, 4000), false));
            break;
        case ToolKind::grep:
            j += "\"pattern\":";
            put_str(j, fmt::format("fn\\s+{}\\(|\"{}\"", ident(r), r.pick(k_words)));
            j += ",\"path\":";
            put_str(j, s.cwd);
            j += R"(,"output_mode":"content","-n":true)";
            put_fmt(j, ",\"head_limit\":{}", r.range(10, 200));
            break;
        case ToolKind::glob:
            j += "\"pattern\":";
            put_str(j, fmt::format("**/*{}*.{}", r.pick(k_words), r.pick(k_exts)));
            break;
        case ToolKind::todo: {
            j += "\"todos\":[";
            const auto n = r.range(2, 7);
            for (std::int64_t i = 0; i < n; ++i) {
                if (i > 0) {
                    j += ',';
                }
                j += "{\"content\":";
                put_str(j, sentence(r));
                j += ",\"status\":";
                put_str(j, i == 0 ? "in_progress" : (r.chance(0.5) ? "pending" : "completed"));
                j += ",\"activeForm\":";
                put_str(j, fmt::format("{}ing the {}", r.pick(k_verbs), r.pick(k_words)));
                j += '}';
            }
            j += ']';
            break;
        }
        case ToolKind::web_fetch:
            j += "\"url\":";
            put_str(j, fmt::format("https://docs.example.com/{}/{}?q={}&page={}", r.pick(k_words),
                                   ident(r), r.pick(k_unicode), r.range(1, 9)));
            j += ",\"prompt\":";
            put_str(j, sentence(r));
            break;
        case ToolKind::task:
            j += "\"description\":";
            put_str(j, fmt::format("{} {}", r.pick(k_verbs), r.pick(k_words)));
            j += ",\"prompt\":";
            put_str(j, prose(r, r.log_uniform(200, 1500)));
            j += R"(,"subagent_type":"general-purpose")";
            break;
        case ToolKind::ls:
            j += "\"path\":";
            put_str(j, s.cwd);
            j += R"(,"ignore":["node_modules","target",".git"])";
            break;
        }
        j += '}';
        return j;
    }

    std::vector<Block>
    reply(Session& s, bool final)
    {
        Rng& r = m_rng;
        std::vector<Block> blocks;
        Block text;
        text.text = prose(r, r.log_uniform(50, 600));
        blocks.push_back(std::move(text));
        if (final) {
            return blocks;
        }
        const double u = r.unit();
        const int n = u < 0.5 ? 1 : u < 0.75 ? 2 : u < 0.9 ? 3 : 4;
        for (int i = 0; i < n; ++i) {
            Block b;
            b.kind = Block::Kind::tool_use;
            b.tool = s.tools[r.index(s.tools.size())];
            b.id = base62_id(r, "toolu_01", 22);
            b.name = b.tool->name;
            b.input = tool_input(*b.tool, s);
            blocks.push_back(std::move(b));
        }
        return blocks;
    }

    std::vector<Block>
    results(const std::vector<Block>& assistant)
    {
        Rng& r = m_rng;
        std::vector<Block> blocks;
        for (const auto& use : assistant) {
            if (use.kind != Block::Kind::tool_use) {
                continue;
            }
            Block b;
            b.kind = Block::Kind::tool_result;
            b.id = use.id;
            b.tool = use.tool;
            b.is_error = r.chance(0.05);
            b.content_blocks = r.chance(0.3);
            b.text = m_pool.text(r, r.log_uniform(300, 8000), use.tool->kind == ToolKind::read);
            blocks.push_back(std::move(b));
        }
        if (r.chance(0.1)) {
            Block note;
            note.text =
                "<system-reminder>\n" + prose(r, r.log_uniform(100, 800)) + "\n</system-reminder>";
            blocks.push_back(std::move(note));
        }
        return blocks;
    }

    // Prompt tokens a request would have, from its rendered size.
    static std::int64_t
    tokens_of(std::size_t bytes)
    {
        return static_cast<std::int64_t>(bytes / 3.6);
    }

    struct UsageNumbers {
        std::int64_t input = 0;
        std::int64_t write = 0;
        std::int64_t read = 0;
        std::int64_t output = 0;
    };

    UsageNumbers
    usage(Session& s, std::int64_t prompt_tokens, std::size_t reply_bytes, std::int64_t stable)
    {
        UsageNumbers u;
        u.input = std::min<std::int64_t>(m_rng.range(1, 8), prompt_tokens);
        if (s.cached_tokens == 0 || m_rng.chance(0.03)) {
            // A cold start or an expired cache; the shared part may survive.
            u.read = s.cached_tokens == 0 ? 0 : std::min(stable, prompt_tokens - u.input);
        } else {
            u.read = std::min(s.cached_tokens, prompt_tokens - u.input);
        }
        u.write = prompt_tokens - u.input - u.read;
        u.output = tokens_of(reply_bytes) + m_rng.range(5, 60);
        s.cached_tokens = u.read + u.write;
        return u;
    }

    void
    put_usage(const UsageNumbers& u)
    {
        put_fmt(m_buf,
                "{{\"input_tokens\":{},\"cache_creation_input_tokens\":{},\"cache_read_input_"
                "tokens\":{},"
                "\"cache_creation\":{{\"ephemeral_5m_input_tokens\":{},\"ephemeral_1h_input_"
                "tokens\":0}},"
                "\"output_tokens\":{},\"service_tier\":\"standard\"}}",
                u.input, u.write, u.read, u.write, u.output);
    }

    static void
    put_block(std::string& o, const Block& b)
    {
        switch (b.kind) {
        case Block::Kind::text:
            o += "{\"type\":\"text\",\"text\":";
            put_str(o, b.text);
            break;
        case Block::Kind::tool_use:
            o += "{\"type\":\"tool_use\",\"id\":\"";
            o += b.id;
            o += "\",\"name\":";
            put_str(o, b.name);
            o += ",\"input\":";
            o += b.input;
            break;
        case Block::Kind::tool_result:
            o += "{\"type\":\"tool_result\",\"tool_use_id\":\"";
            o += b.id;
            o += "\",\"content\":";
            if (b.content_blocks) {
                o += "[{\"type\":\"text\",\"text\":";
                put_str(o, b.text);
                o += "}]";
            } else {
                put_str(o, b.text);
            }
            if (b.is_error) {
                o += ",\"is_error\":true";
            }
            break;
        }
        o += '}';
    }

    static std::string
    message(std::string_view role, const std::vector<Block>& blocks)
    {
        std::string o = "{\"role\":\"";
        o += role;
        o += "\",\"content\":[";
        for (std::size_t i = 0; i < blocks.size(); ++i) {
            if (i > 0) {
                o += ',';
            }
            put_block(o, blocks[i]);
        }
        o += "]}";
        return o;
    }

    static std::size_t
    reply_bytes(const std::vector<Block>& blocks)
    {
        std::size_t n = 0;
        for (const auto& b : blocks) {
            n += b.text.size() + b.input.size();
        }
        return n;
    }

    void
    advance_clock()
    {
        m_clock += 0.2 + m_rng.unit() * 6.0;
    }

    // ----- exchange JSONL -----

    void
    exchange_turn(Session& s)
    {
        Rng& r = m_rng;
        const bool final = s.turn + 1 >= s.turns;
        const auto answer = reply(s, final);

        // The last user message, then the same with cache_control on its last block.
        const std::string user = message("user", s.pending);
        std::string user_cc = user.substr(0, user.size() - 3); // drop "}]}"
        user_cc += ",\"cache_control\":{\"type\":\"ephemeral\"}}]}";

        const std::size_t prompt_bytes =
            s.tools_json.size() + s.system_bytes + s.history.size() + user_cc.size();
        const auto u = usage(s, tokens_of(prompt_bytes), reply_bytes(answer),
                             tokens_of(s.tools_json.size() + s.system_bytes));

        advance_clock();
        const double first_token = m_clock + 0.5 + r.unit() * 2.5;
        const double ended = first_token + static_cast<double>(u.output) / (40.0 + r.unit() * 60.0);

        m_buf += "{\"id\":\"";
        m_buf += base62_id(r, "req_011C", 18);
        m_buf += "\",\"session\":\"";
        m_buf += s.id;
        m_buf += "\",\"started_at\":";
        put_time(m_buf, m_clock);
        m_buf += ",\"first_token_at\":";
        put_time(m_buf, first_token);
        m_buf += ",\"ended_at\":";
        put_time(m_buf, ended);
        m_buf += ",\"request\":{\"model\":\"";
        m_buf += s.model;
        put_fmt(m_buf, "\",\"max_tokens\":{},\"tools\":", s.max_tokens);
        m_buf += s.tools_json;
        m_buf += ",\"system\":";
        m_buf += s.system_json;
        m_buf += ",\"messages\":[";
        m_buf += s.history;
        if (!s.history.empty()) {
            m_buf += ',';
        }
        m_buf += user_cc;
        m_buf += "]},\"response\":{\"id\":\"";
        m_buf += base62_id(r, "msg_01", 22);
        m_buf += "\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"";
        m_buf += s.model;
        m_buf += final ? "\",\"stop_reason\":\"end_turn\",\"usage\":"
                       : "\",\"stop_reason\":\"tool_use\",\"usage\":";
        put_usage(u);
        m_buf += "}}\n";
        ++m_lines;
        ++m_requests;

        // The history grows append-only.
        if (!s.history.empty()) {
            s.history += ',';
        }
        s.history += user;
        s.history += ',';
        s.history += message("assistant", answer);
        ++s.turn;
        if (final) {
            s.active = false;
            return;
        }
        s.pending = results(answer);
    }

    // ----- OpenAI Chat Completions exchange JSONL -----

    // The session's model, tools as functions and system message.
    void
    openai_session(Session& s, double m)
    {
        s.model = m < 0.5    ? "gpt-4.1-2025-04-14"
                  : m < 0.85 ? "gpt-5-2025-08-07"
                             : "gpt-4o-2024-08-06";
        s.openai_tools = "[";
        for (const auto* tool : s.tools) {
            if (s.openai_tools.size() > 1) {
                s.openai_tools += ',';
            }
            // {"name","description","input_schema"} -> function {"name","description","parameters"}
            std::string f = tool->json;
            const std::string_view key = "\"input_schema\":";
            f.replace(f.find(key), key.size(), "\"parameters\":");
            s.openai_tools += "{\"type\":\"function\",\"function\":";
            s.openai_tools += f;
            s.openai_tools += '}';
        }
        s.openai_tools += ']';
        s.openai_system = "{\"role\":\"system\",\"content\":";
        put_str(s.openai_system,
                "You are a coding agent working in the user's repository.\n\n" + s.system_text);
        s.openai_system += '}';
    }

    // Tool results become "tool" messages, text a "user" message.
    static std::string
    openai_user(const std::vector<Block>& blocks)
    {
        std::string o;
        for (const auto& b : blocks) {
            if (!o.empty()) {
                o += ',';
            }
            if (b.kind == Block::Kind::tool_result) {
                o += "{\"role\":\"tool\",\"tool_call_id\":\"";
                o += b.id;
                o += "\",\"content\":";
            } else {
                o += "{\"role\":\"user\",\"content\":";
            }
            put_str(o, b.text);
            o += '}';
        }
        return o;
    }

    // One assistant message: its text and tool calls (arguments as a JSON string).
    static std::string
    openai_assistant(const std::vector<Block>& blocks)
    {
        std::string o = "{\"role\":\"assistant\",\"content\":";
        put_str(o, blocks.front().text);
        std::string calls;
        for (const auto& b : blocks) {
            if (b.kind != Block::Kind::tool_use) {
                continue;
            }
            calls += calls.empty() ? "" : ",";
            calls += "{\"id\":\"call_";
            calls += b.id.substr(8);
            calls += "\",\"type\":\"function\",\"function\":{\"name\":";
            put_str(calls, b.name);
            calls += ",\"arguments\":";
            put_str(calls, b.input);
            calls += "}}";
        }
        if (!calls.empty()) {
            o += ",\"tool_calls\":[" + calls + "]";
        }
        o += '}';
        return o;
    }

    void
    openai_turn(Session& s)
    {
        Rng& r = m_rng;
        const bool final = s.turn + 1 >= s.turns;
        const auto answer = reply(s, final);
        std::vector<Block> pending = s.pending;
        for (auto& b : pending) {
            if (b.kind == Block::Kind::tool_result) {
                b.id = "call_" + b.id.substr(8); // the id of the call it answers
            }
        }
        const std::string user = openai_user(pending);
        const std::size_t prompt_bytes =
            s.openai_tools.size() + s.openai_system.size() + s.openai_history.size() + user.size();
        const std::int64_t prompt = tokens_of(prompt_bytes);
        // OpenAI reads the cache from 1,024 tokens on, in steps of 128.
        const std::int64_t cached = std::min(s.cached_tokens, prompt);
        const std::int64_t read = cached >= 1024 && !r.chance(0.03) ? cached - cached % 128 : 0;
        s.cached_tokens = prompt;
        const std::int64_t output = tokens_of(reply_bytes(answer)) + r.range(5, 60);
        advance_clock();
        const double first_token = m_clock + 0.5 + r.unit() * 2.5;
        const double ended = first_token + static_cast<double>(output) / (40.0 + r.unit() * 60.0);

        m_buf += "{\"id\":\"";
        m_buf += base62_id(r, "chatcmpl-", 24);
        m_buf += "\",\"session\":\"";
        m_buf += s.id;
        m_buf += "\",\"started_at\":";
        put_time(m_buf, m_clock);
        m_buf += ",\"first_token_at\":";
        put_time(m_buf, first_token);
        m_buf += ",\"ended_at\":";
        put_time(m_buf, ended);
        m_buf += ",\"request\":{\"model\":\"";
        m_buf += s.model;
        put_fmt(m_buf, "\",\"max_completion_tokens\":{},\"tools\":", s.max_tokens);
        m_buf += s.openai_tools;
        m_buf += ",\"messages\":[";
        m_buf += s.openai_system;
        m_buf += ',';
        m_buf += s.openai_history;
        if (!s.openai_history.empty()) {
            m_buf += ',';
        }
        m_buf += user;
        m_buf += "]},\"response\":{\"id\":\"";
        m_buf += base62_id(r, "chatcmpl-", 24);
        m_buf += "\",\"object\":\"chat.completion\",\"model\":\"";
        m_buf += s.model;
        put_fmt(m_buf,
                "\",\"choices\":[{{\"index\":0,\"finish_reason\":\"{}\"}}],\"usage\":{{"
                "\"prompt_tokens\":{},\"completion_tokens\":{},\"total_tokens\":{},"
                "\"prompt_tokens_details\":{{\"cached_tokens\":{}}}}}}}}}\n",
                final ? "stop" : "tool_calls", prompt, output, prompt + output, read);
        ++m_lines;
        ++m_requests;

        if (!s.openai_history.empty()) {
            s.openai_history += ',';
        }
        s.openai_history += user;
        s.openai_history += ',';
        s.openai_history += openai_assistant(answer);
        ++s.turn;
        if (final) {
            s.active = false;
            return;
        }
        s.pending = results(answer);
    }

    // ----- Claude Code transcripts -----

    void
    cc_head(const Session& s)
    {
        m_buf += "{\"parentUuid\":";
        if (s.last_uuid.empty()) {
            m_buf += "null";
        } else {
            m_buf += '"';
            m_buf += s.last_uuid;
            m_buf += '"';
        }
        m_buf += ",\"isSidechain\":false,\"userType\":\"external\",\"cwd\":";
        put_str(m_buf, s.cwd);
        m_buf += ",\"sessionId\":\"";
        m_buf += s.id;
        m_buf += "\",\"version\":\"";
        m_buf += s.version;
        m_buf += "\",\"gitBranch\":";
        put_str(m_buf, s.branch);
    }

    void
    cc_tail(Session& s, const std::string& uuid_now)
    {
        m_buf += ",\"uuid\":\"";
        m_buf += uuid_now;
        m_buf += "\",\"timestamp\":";
        put_time(m_buf, m_clock);
        s.last_uuid = uuid_now;
        ++m_lines;
    }

    // `message_id`: the user line the snapshot belongs to.
    void
    cc_snapshot(Session& s, const std::string& message_id, bool update)
    {
        Rng& r = m_rng;
        m_buf += "{\"type\":\"file-history-snapshot\",\"messageId\":\"";
        m_buf += message_id;
        m_buf += "\",\"snapshot\":{\"messageId\":\"";
        m_buf += message_id;
        m_buf += "\",\"trackedFileBackups\":{";
        const auto n = r.chance(0.05) ? r.range(500, 3000) : r.range(0, 10);
        for (std::int64_t i = 0; i < n; ++i) {
            if (i > 0) {
                m_buf += ',';
            }
            put_str(m_buf,
                    fmt::format("{}/src/{}/{}.{}", s.cwd, ident(r), ident(r), r.pick(k_exts)));
            put_fmt(m_buf, ":{{\"backupFileName\":\"{:016x}@v{}\",\"version\":{},\"backupTime\":",
                    r.next(), i % 7 + 1, i % 7 + 1);
            put_time(m_buf, m_clock - r.unit() * 3600);
            m_buf += '}';
        }
        m_buf += "},\"timestamp\":";
        put_time(m_buf, m_clock);
        m_buf += update ? "},\"isSnapshotUpdate\":true}\n" : "},\"isSnapshotUpdate\":false}\n";
        ++m_lines;
    }

    void
    cc_user_line(Session& s, const Block& b, std::string id = {})
    {
        Rng& r = m_rng;
        if (id.empty()) {
            id = uuid(r);
        }
        cc_head(s);
        m_buf += ",\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":";
        if (b.kind == Block::Kind::text && s.last_uuid.empty()) {
            put_str(m_buf, b.text); // the opening prompt: a plain string
        } else {
            m_buf += '[';
            put_block(m_buf, b);
            m_buf += ']';
        }
        m_buf += '}';
        cc_tail(s, id);
        if (b.kind == Block::Kind::tool_result) {
            // Claude Code repeats the tool's output in its own shape.
            if (b.tool != nullptr && b.tool->kind == ToolKind::read) {
                m_buf += ",\"toolUseResult\":{\"type\":\"text\",\"file\":{\"filePath\":";
                put_str(m_buf, fmt::format("{}/src/{}.{}", s.cwd, ident(r), r.pick(k_exts)));
                m_buf += ",\"content\":";
                put_str(m_buf, b.text);
                const auto lines = std::count(b.text.begin(), b.text.end(), '\n') + 1;
                put_fmt(m_buf, ",\"numLines\":{},\"startLine\":1,\"totalLines\":{}}}}}", lines,
                        lines);
            } else {
                m_buf += ",\"toolUseResult\":{\"stdout\":";
                put_str(m_buf, b.text);
                m_buf += ",\"stderr\":\"\",\"interrupted\":false,\"isImage\":false}";
            }
        } else {
            s.user_uuids.push_back(id);
        }
        m_buf += "}\n";
        s.cc_history_bytes += b.text.size() + 64;
    }

    void
    claude_code_turn(Session& s)
    {
        Rng& r = m_rng;
        advance_clock();
        if (s.turn == 0) {
            const std::string prompt_id = uuid(r);
            if (r.chance(0.5)) {
                cc_snapshot(s, prompt_id, false);
            }
            for (std::size_t i = 0; i < s.pending.size(); ++i) {
                cc_user_line(s, s.pending[i], i == 0 ? prompt_id : std::string());
            }
        }
        const bool final = s.turn + 1 >= s.turns;
        const auto answer = reply(s, final);
        // Claude Code's own system prompt and tools: about as large as ours.
        const std::size_t prompt_bytes = s.tools_json.size() + s.system_bytes + s.cc_history_bytes;
        const auto u = usage(s, tokens_of(prompt_bytes), reply_bytes(answer),
                             tokens_of(s.tools_json.size() + s.system_bytes));
        const std::string request_id = base62_id(r, "req_011C", 18);
        const std::string message_id = base62_id(r, "msg_01", 22);
        m_clock += 0.5 + r.unit() * 2.5;
        for (const auto& b : answer) {
            const std::string id = uuid(r);
            cc_head(s);
            m_buf += ",\"message\":{\"id\":\"";
            m_buf += message_id;
            m_buf += "\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"";
            m_buf += s.model;
            m_buf += "\",\"content\":[";
            put_block(m_buf, b);
            m_buf += "],\"stop_reason\":null,\"stop_sequence\":null,\"usage\":";
            put_usage(u);
            m_buf += "},\"requestId\":\"";
            m_buf += request_id;
            m_buf += "\",\"type\":\"assistant\"";
            cc_tail(s, id);
            m_buf += "}\n";
            s.cc_history_bytes += b.text.size() + b.input.size() + 64;
            m_clock += r.unit() * 2;
        }
        ++m_requests;
        ++s.turn;
        if (final) {
            s.active = false;
            return;
        }
        s.pending = results(answer);
        advance_clock();
        for (const auto& b : s.pending) {
            cc_user_line(s, b);
        }
        if (r.chance(0.08) && !s.user_uuids.empty()) {
            cc_snapshot(s, s.user_uuids[r.index(s.user_uuids.size())], true);
        }
    }

    Rng m_rng;
    bool m_claude_code;
    bool m_openai;
    TextPool m_pool;
    std::vector<Tool> m_tools;
    std::vector<std::string> m_system_bases;
    std::vector<Session> m_sessions;
    std::string m_buf;
    std::FILE* m_file = nullptr;
    double m_clock = 1748854800.0; // 2025-06-02T09:00:00Z
    std::uint64_t m_written = 0;
    std::uint64_t m_lines = 0;
    std::uint64_t m_requests = 0;
    std::uint64_t m_sessions_started = 0;
};

void
usage_and_exit(int code)
{
    std::fputs(
        "usage: cachewise_gen_log --out FILE --size-mb N [--sessions K] [--seed S]\n"
        "                         [--format exchange|claude-code|openai] [--ascii] [--split]\n"
        "  --out FILE       where to write (\"-\" for standard output)\n"
        "  --size-mb N      stop once N MB (N x 1,000,000 bytes) are written\n"
        "  --sessions K     sessions interleaved at any time (default 4)\n"
        "  --seed S         PRNG seed; the output is a function of it (default 1)\n"
        "  --format F       exchange (default), claude-code or openai (Chat Completions)\n"
        "  --ascii          escape non-ASCII characters as \\uXXXX\n"
        "  --split          --out is a directory: one FILE per session, <session id>.jsonl\n"
        "                   (how Claude Code keeps transcripts); sessions are not interleaved\n",
        code == 0 ? stdout : stderr);
    std::exit(code);
}

std::uint64_t
parse_number(const char* flag, const char* text)
{
    char* end = nullptr;
    errno = 0;
    const double v = std::strtod(text, &end);
    if (errno != 0 || end == text || *end != '\0' || !(v >= 0) || v > 1e12) {
        std::fprintf(stderr, "cachewise_gen_log: %s: not a number: %s\n", flag, text);
        std::exit(2);
    }
    return static_cast<std::uint64_t>(v);
}

void
report(const Generator& gen, const std::string& out_path, const char* format, std::uint64_t seed,
       std::chrono::steady_clock::time_point t0)
{
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::fprintf(
        stderr,
        "cachewise_gen_log: wrote %s: %llu bytes, %llu lines, %llu requests, %llu sessions "
        "(%s, seed %llu) in %.2f s (%.0f MB/s)\n",
        out_path.c_str(), static_cast<unsigned long long>(gen.written()),
        static_cast<unsigned long long>(gen.lines()),
        static_cast<unsigned long long>(gen.requests()),
        static_cast<unsigned long long>(gen.sessions()), format,
        static_cast<unsigned long long>(seed), secs,
        static_cast<double>(gen.written()) / 1e6 / secs);
}

} // namespace

int
main(int argc, char** argv)
{
    std::string out_path;
    double size_mb = -1;
    std::uint64_t sessions = 4;
    std::uint64_t seed = 1;
    bool claude_code = false;
    bool openai = false;
    bool split = false;
    for (int i = 1; i < argc; ++i) {
        const std::string_view a = argv[i];
        const auto value = [&]() -> const char* {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "cachewise_gen_log: %s needs a value\n", argv[i]);
                std::exit(2);
            }
            return argv[++i];
        };
        if (a == "--out") {
            out_path = value();
        } else if (a == "--size-mb") {
            const char* v = value();
            char* end = nullptr;
            size_mb = std::strtod(v, &end);
            if (end == v || *end != '\0' || !(size_mb > 0)) {
                std::fprintf(stderr,
                             "cachewise_gen_log: --size-mb: expected a positive number: %s\n", v);
                return 2;
            }
        } else if (a == "--sessions") {
            sessions = parse_number("--sessions", value());
        } else if (a == "--seed") {
            seed = parse_number("--seed", value());
        } else if (a == "--format") {
            const std::string_view f = value();
            claude_code = f == "claude-code";
            openai = f == "openai";
            if (f != "exchange" && !claude_code && !openai) {
                std::fprintf(stderr, "cachewise_gen_log: --format: expected exchange, "
                                     "claude-code or openai\n");
                return 2;
            }
        } else if (a == "--ascii") {
            g_ascii = true;
        } else if (a == "--split") {
            split = true;
        } else if (a == "-h" || a == "--help") {
            usage_and_exit(0);
        } else {
            std::fprintf(stderr, "cachewise_gen_log: unknown argument: %s\n", argv[i]);
            usage_and_exit(2);
        }
    }
    if (out_path.empty() || size_mb <= 0) {
        usage_and_exit(2);
    }
    if (sessions == 0) {
        std::fprintf(stderr, "cachewise_gen_log: --sessions must be at least 1\n");
        return 2;
    }
    if (split && out_path == "-") {
        std::fprintf(stderr, "cachewise_gen_log: --split needs a directory for --out\n");
        return 2;
    }

    const auto t0 = std::chrono::steady_clock::now();
    if (openai && split) {
        std::fprintf(stderr, "cachewise_gen_log: --split goes with --format claude-code\n");
        return 2;
    }
    Generator gen(seed, claude_code, openai);
    const auto target = static_cast<std::uint64_t>(size_mb * 1e6);
    if (split) {
        std::error_code ec;
        std::filesystem::create_directories(out_path, ec);
        if (ec) {
            std::fprintf(stderr, "cachewise_gen_log: %s: %s\n", out_path.c_str(),
                         ec.message().c_str());
            return 1;
        }
        try {
            gen.run_split(out_path, target);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "cachewise_gen_log: %s\n", e.what());
            return 1;
        }
        report(gen, out_path,
               claude_code ? "claude-code"
               : openai    ? "openai"
                           : "exchange",
               seed, t0);
        return 0;
    }
    std::FILE* out = out_path == "-" ? stdout : std::fopen(out_path.c_str(), "wb");
    if (out == nullptr) {
        std::fprintf(stderr, "cachewise_gen_log: %s: %s\n", out_path.c_str(), std::strerror(errno));
        return 1;
    }
    try {
        gen.run(out, target, static_cast<std::size_t>(sessions));
    } catch (const std::exception& e) {
        std::fprintf(stderr, "cachewise_gen_log: %s: %s\n", out_path.c_str(), e.what());
        return 1;
    }
    if ((out != stdout && std::fclose(out) != 0) || (out == stdout && std::fflush(out) != 0)) {
        std::fprintf(stderr, "cachewise_gen_log: %s: %s\n", out_path.c_str(), std::strerror(errno));
        return 1;
    }
    report(gen, out_path, claude_code ? "claude-code" : openai ? "openai" : "exchange", seed, t0);
    return 0;
}
