#include "ingest/claude_code.hpp"

#include "ingest/field_error.hpp"
#include "ingest/ondemand.hpp"
#include "ingest/response_parser.hpp"
#include "util/time.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

namespace cachewise::ingest {

using model::Role;

// One line, without a heap allocation for what repeats: uuids are kept as
// their hash, the values every line repeats (session, agent, model, version)
// as an index into the file's distinct values.
struct ClaudeCodeReader::Entry {
    Hash128 uuid;
    std::string uuid_head; // the first 8 characters (a sidechain's stream name)
    bool has_uuid = false;
    Hash128 parent_key;
    bool has_parent = false;
    std::string parent; // kept only while the parent is not in the file yet
    std::uint32_t session = 0;
    std::uint32_t agent = 0;
    std::uint32_t model = 0;
    std::uint32_t version = 0;
    Role role = Role::none;
    bool message = false; // false: a bookkeeping line that only links the chain
    bool sidechain = false;
    bool images = false;
    std::optional<model::Usage> usage;
    std::optional<Timestamp> timestamp;
    std::vector<model::Segment> segments;
    std::uint64_t line = 0;
    // The entry of `parent` in this file, found once in finish():
    // k_unresolved when the parent is not in the file, k_root without one.
    std::size_t parent_index = 0;
};

namespace {
constexpr std::size_t k_root = static_cast<std::size_t>(-1);
constexpr std::size_t k_unresolved = static_cast<std::size_t>(-2);
} // namespace

namespace {

// A string member's value (valid until the next line); null reads as "".
std::string_view
string_view_member(od::value v, std::string_view name)
{
    const auto t = get(v.type(), "a value");
    if (t == od::json_type::null) {
        return {};
    }
    if (t != od::json_type::string) {
        throw FieldError(std::string(name),
                         fmt::format("expected a string, found {}", describe(t)));
    }
    return get(v.get_string(), "a string");
}

std::string
string_member(od::value v, std::string_view name)
{
    return std::string(string_view_member(v, name));
}

// The inner message of a progress line: its id, model and usage.
void
inner_message(od::value message, ClaudeCodeReader::ProgressCall& call)
{
    for (auto f : get(message.get_object(), "an object")) {
        const auto k = key_of(f);
        od::value v = get(f.value(), "a value");
        if (k == "model") {
            call.model = string_member(v, "model");
        } else if (k == "usage") {
            call.usage = within("usage", [&] { return ResponseParser::parse_usage(v); });
        }
    }
}

bool
contains(std::string_view haystack, std::string_view needle)
{
    return haystack.find(needle) != std::string_view::npos;
}

} // namespace

bool
looks_like_claude_code(std::string_view first_line)
{
    return (contains(first_line, "\"sessionId\"") && contains(first_line, "\"parentUuid\"")) ||
           (contains(first_line, "\"type\":\"summary\"") && contains(first_line, "\"leafUuid\"")) ||
           contains(first_line, "\"type\":\"file-history-snapshot\"");
}

ClaudeCodeReader::ClaudeCodeReader(AnthropicRequestParser& parser, const ruleset::Rules& rules,
                                   std::string file)
    : m_parser(&parser), m_rules(&rules), m_file(std::move(file))
{}

ClaudeCodeReader::~ClaudeCodeReader() = default;

std::uint32_t
ClaudeCodeReader::intern(std::string_view value, Interned field)
{
    std::uint32_t& last = m_last_value[static_cast<std::size_t>(field)];
    if (m_values[last] == value) {
        return last;
    }
    const auto [it, inserted] =
        m_value_index.try_emplace(std::string(value), static_cast<std::uint32_t>(m_values.size()));
    if (inserted) {
        m_values.push_back(it->first);
    }
    last = it->second;
    return last;
}

// What a line says beside its entry: its type, the response it belongs to,
// whether Claude Code made it up (an API error shown as a message), and a
// subagent's call reported in a progress line.
struct ClaudeCodeReader::LineFacts {
    std::string type;
    std::string_view request_id;
    bool synthetic = false;
    std::optional<ProgressCall> call;
};

ClaudeCodeReader::LineKind
ClaudeCodeReader::line(od::parser& parser, std::string_view text, std::uint64_t number)
{
    if (text.find_first_not_of(" \t") == std::string_view::npos) {
        return LineKind::blank;
    }
    // Snapshots and summaries can be hundreds of megabytes and are never part
    // of a prompt: only lines that link into the message chain are parsed.
    if (!contains(text, "\"parentUuid\"")) {
        return LineKind::bookkeeping;
    }
    try {
        od::document doc =
            get(iterate_twice_room(parser, text.data(), text.size(), text.size() + 64), "JSON");
        od::object object;
        if (const auto error = doc.get_object().get(object); error) {
            throw FieldError(
                "", fmt::format("expected a JSON object: {}", simdjson::error_message(error)));
        }
        Entry e;
        e.line = number;
        LineFacts facts;
        for (auto field : object) {
            entry_member(key_of(field), get(field.value(), "a value"), e, facts);
        }
        return keep_line(std::move(e), std::move(facts));
    } catch (...) {
        m_broken_lines.push_back(number); // the loader reports it; finish() bridges it
        throw;
    }
}

// One member of a transcript line.
void
ClaudeCodeReader::entry_member(std::string_view key, od::value v, Entry& e, LineFacts& facts)
{
    const std::string& type = facts.type;
    if (key == "type") {
        facts.type = string_member(v, "type");
    } else if (key == "uuid") {
        const std::string_view uuid = string_view_member(v, "uuid");
        e.has_uuid = !uuid.empty();
        e.uuid = hash_bytes(uuid);
        e.uuid_head = std::string(uuid.substr(0, 8));
    } else if (key == "parentUuid") {
        const std::string_view parent = string_view_member(v, "parentUuid");
        e.has_parent = !parent.empty();
        e.parent_key = hash_bytes(parent);
        // The name is needed only for a note when the parent is missing.
        e.parent =
            e.has_parent && !m_by_uuid.contains(e.parent_key) ? std::string(parent) : std::string();
    } else if (key == "sessionId") {
        e.session = intern(string_view_member(v, "sessionId"), Interned::session);
    } else if (key == "agentId") {
        e.agent = intern(string_view_member(v, "agentId"), Interned::agent);
    } else if (key == "requestId") {
        facts.request_id = string_view_member(v, "requestId");
    } else if (key == "version") {
        e.version = intern(string_view_member(v, "version"), Interned::version);
    } else if (key == "isSidechain") {
        bool b = false;
        if (v.get_bool().get(b) == simdjson::SUCCESS) {
            e.sidechain = b;
        }
    } else if (key == "isApiErrorMessage") {
        bool b = false;
        facts.synthetic = facts.synthetic || (v.get_bool().get(b) == simdjson::SUCCESS && b);
    } else if (key == "timestamp") {
        const std::string ts = string_member(v, "timestamp");
        if (!ts.empty()) {
            auto parsed = parse_rfc3339(ts);
            if (!parsed) {
                throw FieldError("timestamp", parsed.error());
            }
            e.timestamp = *parsed;
        }
    } else if (key == "data" && (type.empty() || type == "progress")) {
        facts.call = within("data", [&] { return progress(v); });
    } else if (key == "message" && (type.empty() || type == "user" || type == "assistant")) {
        // The message comes before or after "type"; its content is rendered
        // now (the document is read once) and dropped if the type says so.
        within("message", [&] { message(v, e); });
    }
}

// A line's "message": role, model, usage and content.
void
ClaudeCodeReader::message(od::value v, Entry& e)
{
    if (get(v.type(), "an object") != od::json_type::object) {
        throw FieldError("", "expected an object");
    }
    bool has_content = false;
    std::string role;
    for_each_member(v, [&](std::string_view k, od::value& mv) {
        if (k == "role") {
            role = string_member(mv, "role");
        } else if (k == "model") {
            e.model = intern(string_view_member(mv, "model"), Interned::model);
        } else if (k == "usage") {
            e.usage = within("usage", [&] { return ResponseParser::parse_usage(mv); });
        } else if (k == "content") {
            within("content",
                   [&] { m_parser->message_content(mv, Role::none, 0, e.segments, e.images); });
            has_content = true;
        }
    });
    if (role == "user") {
        e.role = Role::user;
    } else if (role == "assistant") {
        e.role = Role::assistant;
    } else {
        throw FieldError("role",
                         fmt::format("expected \"user\" or \"assistant\", found \"{}\"", role));
    }
    if (!has_content) {
        throw FieldError("content", "missing");
    }
}

// Keeps a parsed line: its progress call, its entry in the chain, and its
// place in the response it belongs to.
ClaudeCodeReader::LineKind
ClaudeCodeReader::keep_line(Entry&& e, LineFacts&& facts)
{
    const std::string& type = facts.type;
    if (facts.call && type == "progress") {
        ProgressCall& call = *facts.call;
        call.session = m_values[e.session];
        call.agent = call.agent.empty() ? m_values[e.agent] : call.agent;
        call.file = m_file;
        call.line = e.line;
        call.timestamp = call.timestamp ? call.timestamp : e.timestamp;
        keep_progress(std::move(call));
    }
    e.message = (type == "user" || type == "assistant") && !e.segments.empty() &&
                !facts.synthetic && m_values[e.model] != "<synthetic>";
    if (!e.has_uuid) {
        if (type == "user" || type == "assistant") {
            throw FieldError("uuid", "missing");
        }
        return LineKind::bookkeeping;
    }
    if (e.message && e.role == Role::assistant && !facts.request_id.empty()) {
        const auto [it, inserted] = m_request_of.try_emplace(
            hash_bytes(facts.request_id), static_cast<std::uint32_t>(m_requests.size()));
        if (inserted) {
            m_requests.push_back(Response{std::string(facts.request_id), {}});
        }
        m_requests[it->second].lines.push_back(m_entries.size());
    }
    for (auto& s : e.segments) {
        s.role = e.role;
    }
    const bool is_message = e.message;
    m_by_uuid[e.uuid] = m_entries.size();
    m_entries.push_back(std::move(e));
    return is_message ? LineKind::message : LineKind::bookkeeping;
}

// data: {"type": "agent_progress", "agentId", "message": {"type": "assistant",
// "requestId", "timestamp", "message": {"id", "model", "usage", ...}}}.
std::optional<ClaudeCodeReader::ProgressCall>
ClaudeCodeReader::progress(od::value data)
{
    if (get(data.type(), "a value") != od::json_type::object) {
        return std::nullopt;
    }
    ProgressCall call;
    std::string kind;
    std::string message_type;
    for_each_member(data, [&](std::string_view key, od::value& v) {
        if (key == "type") {
            kind = string_member(v, "type");
        } else if (key == "agentId") {
            call.agent = string_member(v, "agentId");
        } else if (key == "message" && get(v.type(), "a value") == od::json_type::object) {
            within("message", [&] {
                for_each_member(v, [&](std::string_view k, od::value& mv) {
                    if (k == "type") {
                        message_type = string_member(mv, "type");
                    } else if (k == "requestId") {
                        call.request_id = string_member(mv, "requestId");
                    } else if (k == "timestamp") {
                        if (auto t = parse_rfc3339(string_member(mv, "timestamp")); t) {
                            call.timestamp = *t;
                        }
                    } else if (k == "message" &&
                               get(mv.type(), "a value") == od::json_type::object) {
                        within("message", [&] { inner_message(mv, call); });
                    }
                });
            });
        }
    });
    if (kind != "agent_progress" || message_type != "assistant" || !call.usage ||
        call.request_id.empty() || call.model == "<synthetic>") {
        return std::nullopt;
    }
    return call;
}

void
ClaudeCodeReader::keep_progress(ProgressCall call)
{
    // Every content block of a streamed response repeats its usage; only
    // output_tokens grows.
    const auto [it, inserted] =
        m_progress_of_request.try_emplace(call.request_id, m_progress.size());
    if (inserted) {
        m_progress.push_back(std::move(call));
        return;
    }
    auto& kept = m_progress[it->second].usage;
    if (kept && call.usage && call.usage->output_tokens) {
        kept->output_tokens = std::max(kept->output_tokens.value_or(0), *call.usage->output_tokens);
    }
}

std::vector<ClaudeCodeReader::ProgressCall>
ClaudeCodeReader::take_progress()
{
    m_progress_of_request.clear();
    return std::move(m_progress);
}

model::Request
ClaudeCodeReader::progress_request(ProgressCall call)
{
    model::Request r;
    r.id = std::move(call.request_id);
    r.file = std::move(call.file);
    r.line = call.line;
    r.model = std::move(call.model);
    r.stream = fmt::format("{}/agent-{}", call.session, call.agent.empty() ? "?" : call.agent);
    r.started_at = call.timestamp;
    r.usage = call.usage;
    r.usage->origin = model::Usage::Origin::transcript;
    r.prompt_logged = false;
    r.breakpoints_logged = false;
    r.notes.emplace_back("a subagent call seen only in its parent's progress lines (its own "
                         "transcript is absent): billed and counted, its prompt not logged");
    return r;
}

void
ClaudeCodeReader::build(const Response& response, model::Request& request)
{
    const std::vector<std::size_t> chain = history(response.lines.front(), request);
    request.breakpoints_logged = false; // Claude Code sets cache_control; transcripts drop it
    identify(response, chain, request);
    request.usage = usage_of(response);
    request.segments.push_back(hidden_head(m_entries[response.lines.front()]));
    request.notes.emplace_back(
        "Claude Code transcripts do not log the system prompt and tool definitions: "
        "they are one segment, assumed identical for the same Claude Code version and kind of "
        "thread (main or subagent)");
    const bool images = add_messages(chain, request);
    request.params.push_back(model::Param{"model", request.model, true, model::Level::tools});
    request.params.push_back(
        model::Param{"images", images ? "yes" : "no", true, model::Level::messages});
}

// The prompt: every line from the root of the chain down to the one the
// response answers, followed by index (every request of a session walks its
// whole history).
std::vector<std::size_t>
ClaudeCodeReader::history(std::size_t at, model::Request& request) const
{
    std::vector<std::size_t> chain;
    while (m_entries[at].parent_index != k_root && chain.size() <= m_entries.size()) {
        const std::size_t parent = m_entries[at].parent_index;
        if (parent == k_unresolved) {
            request.notes.push_back(
                fmt::format("history starts at a line whose parent {} is not in this file",
                            m_entries[at].parent));
            break;
        }
        if (const auto bridge = m_bridged.find(at); bridge != m_bridged.end()) {
            request.notes.push_back(fmt::format(
                "history assumed to go on across line {}, which did not parse: its content is "
                "missing from this prompt",
                bridge->second));
        }
        chain.push_back(parent);
        at = parent;
    }
    std::reverse(chain.begin(), chain.end());
    return chain;
}

// Id, source, model, stream and times of the request a response answers.
void
ClaudeCodeReader::identify(const Response& response, const std::vector<std::size_t>& chain,
                           model::Request& request) const
{
    const Entry& first = m_entries[response.lines.front()];
    const Entry& last = m_entries[response.lines.back()];
    request.id = response.id;
    request.file = m_file;
    request.line = first.line;
    request.model = m_values[first.model];
    const std::string& session = m_values[first.session];
    const std::string& agent = m_values[first.agent];
    if (!agent.empty()) {
        request.stream = fmt::format("{}/agent-{}", session, agent);
    } else if (first.sidechain) {
        const Entry& root = chain.empty() ? first : m_entries[chain.front()];
        request.stream = fmt::format("{}/sidechain-{}", session, root.uuid_head);
    } else {
        request.stream = session;
    }
    // Transcript times are when lines were written: the prompt's last line
    // approximates the start, the first response line the first token.
    const auto timed = std::find_if(chain.rbegin(), chain.rend(), [&](std::size_t i) {
        return m_entries[i].timestamp.has_value();
    });
    if (timed != chain.rend()) {
        request.started_at = m_entries[*timed].timestamp;
    }
    request.first_token_at = first.timestamp;
    request.ended_at = last.timestamp;
    if (!request.started_at) {
        request.started_at = first.timestamp;
    }
}

// The same on every line of the response except output_tokens, which grows
// while it streams.
std::optional<model::Usage>
ClaudeCodeReader::usage_of(const Response& response) const
{
    std::optional<model::Usage> usage;
    for (const auto i : response.lines) {
        const auto& u = m_entries[i].usage;
        if (!u) {
            continue;
        }
        if (!usage) {
            usage = u;
        } else if (u->output_tokens) {
            usage->output_tokens = std::max(usage->output_tokens.value_or(0), *u->output_tokens);
        }
    }
    if (usage) {
        usage->origin = model::Usage::Origin::transcript;
    }
    return usage;
}

// The system prompt and tools, which transcripts do not log: one segment.
model::Segment
ClaudeCodeReader::hidden_head(const Entry& first) const
{
    model::Segment hidden;
    hidden.kind = model::SegmentKind::unlogged;
    hidden.path = model::SegmentPath{model::Level::tools, -1, -1};
    // A subagent runs with its own system prompt and tools, never the main thread's.
    const bool main = m_values[first.agent].empty() && !first.sidechain;
    hidden.content = hash_bytes(fmt::format("claude-code {} system prompt and tools, version {}",
                                            main ? "main" : "subagent", m_values[first.version]));
    hidden.cache_control_allowed = false;
    return hidden;
}

// The messages of the chain as API messages; true when one holds an image.
bool
ClaudeCodeReader::add_messages(const std::vector<std::size_t>& chain, model::Request& request) const
{
    std::size_t blocks = request.segments.size();
    for (const auto i : chain) {
        blocks += m_entries[i].message ? m_entries[i].segments.size() : 0;
    }
    request.segments.reserve(blocks);
    bool images = false;
    int message = -1;
    Role previous = Role::none;
    int block = 0;
    for (const auto i : chain) {
        const Entry& e = m_entries[i];
        if (!e.message) {
            continue;
        }
        images = images || e.images;
        // Consecutive lines of one role are one API message (a response is
        // split into one line per content block; tool results likewise).
        if (e.role != previous) {
            ++message;
            block = 0;
            previous = e.role;
        }
        for (const auto& original : e.segments) {
            auto& s = request.segments.emplace_back(original);
            // A string `content` keeps its "messages[i].content" path unless
            // merging puts other blocks beside it (fixed below).
            s.path =
                model::SegmentPath{model::Level::messages, message, block, s.path.whole_content};
            if (s.message_start && block != 0) {
                // Estimated as a message of its own; it continues one.
                s.estimate -= static_cast<float>(m_rules->tokens.message_overhead.value);
            }
            s.message_start = block == 0;
            ++block;
        }
    }
    for (std::size_t i = 1; i < request.segments.size(); ++i) {
        auto& path = request.segments[i].path;
        const bool alone =
            (request.segments[i].message_start) &&
            (i + 1 == request.segments.size() || request.segments[i + 1].message_start);
        path.whole_content = path.whole_content && alone;
    }
    return images;
}

// Claude Code chains each line to the one before it. A line that did not
// parse leaves the next one without its parent: that line's history is taken
// to go on from the entry before the broken line (same side chain), and its
// requests say so, rather than starting over as if warmed elsewhere.
void
ClaudeCodeReader::bridge_broken_lines()
{
    std::size_t next = 0; // the first entry after the broken line
    for (const auto broken : m_broken_lines) {
        while (next < m_entries.size() && m_entries[next].line < broken) {
            ++next;
        }
        if (next == 0 || next == m_entries.size()) {
            continue;
        }
        Entry& orphan = m_entries[next];
        const Entry& before = m_entries[next - 1];
        if (orphan.parent_index == k_unresolved && before.sidechain == orphan.sidechain &&
            before.session == orphan.session) {
            orphan.parent_index = next - 1;
            m_bridged.emplace(next, broken);
        }
    }
}

void
ClaudeCodeReader::finish(const std::function<void(model::Request&&)>& emit,
                         std::unordered_set<std::string>& seen, std::uint64_t& duplicates)
{
    for (auto& e : m_entries) {
        if (!e.has_parent) {
            e.parent_index = k_root;
        } else {
            const auto it = m_by_uuid.find(e.parent_key);
            e.parent_index = it == m_by_uuid.end() ? k_unresolved : it->second;
        }
    }
    bridge_broken_lines();
    for (const auto& response : m_requests) {
        if (!seen.insert(response.id).second) {
            ++duplicates;
            continue;
        }
        model::Request request;
        build(response, request);
        AnthropicRequestParser::finalize(request, *m_rules);
        emit(std::move(request));
    }
}

} // namespace cachewise::ingest
