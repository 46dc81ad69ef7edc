#include "ingest/loader.hpp"

#include "ingest/anthropic_request.hpp"
#include "ingest/api_format.hpp"
#include "ingest/bedrock_request.hpp"
#include "ingest/claude_code.hpp"
#include "ingest/field_error.hpp"
#include "ingest/file_kind.hpp"
#include "ingest/gemini_request.hpp"
#include "ingest/ondemand.hpp"
#include "ingest/openai_chat_request.hpp"
#include "ingest/openai_responses_request.hpp"
#include "ingest/otel_spans.hpp"
#include "ingest/response_parser.hpp"
#include "ingest/trajectory.hpp"
#include "ingest/vcr_cassette.hpp"
#include "model/chain.hpp"
#include "model/tokens.hpp"
#include "util/error.hpp"
#include "util/escape.hpp"
#include "util/line_reader.hpp"
#include "util/redact.hpp"
#include "util/time.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <filesystem>
#include <map>
#include <unordered_set>

namespace cachewise::ingest {

namespace fs = std::filesystem;

std::string_view
to_string(InputFormat format)
{
    switch (format) {
    case InputFormat::auto_detect:
        return "auto";
    case InputFormat::request:
        return "request";
    case InputFormat::exchange:
        return "exchange";
    case InputFormat::sse:
        return "sse";
    case InputFormat::claude_code:
        return "claude-code";
    case InputFormat::vcr:
        return "vcr";
    }
    return "?";
}

std::optional<InputFormat>
parse_input_format(std::string_view name)
{
    for (auto f : {InputFormat::auto_detect, InputFormat::request, InputFormat::exchange,
                   InputFormat::sse, InputFormat::claude_code, InputFormat::vcr}) {
        if (to_string(f) == name) {
            return f;
        }
    }
    return std::nullopt;
}

std::string
InputError::str() const
{
    std::string where = line > 0 ? fmt::format("{}:{}", file, line) : file;
    return field.empty() ? fmt::format("{}: {}", where, reason)
                         : fmt::format("{}: {}: {}", where, field, reason);
}

namespace {

constexpr std::array<std::string_view, 6> k_walked = {".json", ".jsonl", ".ndjson",
                                                      ".sse",  ".yaml",  ".yml"};

bool
is_walked(const std::string& ext)
{
    return std::find(k_walked.begin(), k_walked.end(), ext) != k_walked.end();
}

// Walks `dir` for log files; a folder that cannot be listed is reported,
// not skipped in silence. Symbolic links to folders are not followed.
void
walk(const fs::path& dir, std::vector<std::string>& found, std::size_t& others,
     std::vector<InputError>* unreadable)
{
    std::error_code ec;
    fs::directory_iterator it(dir, ec);
    std::vector<fs::path> folders;
    for (; !ec && it != fs::directory_iterator(); it.increment(ec)) {
        const auto status = it->symlink_status(ec);
        if (ec) {
            break;
        }
        if (fs::is_directory(status)) {
            folders.push_back(it->path());
        } else if (it->is_regular_file(ec)) {
            if (is_walked(it->path().extension().string())) {
                found.push_back(it->path().string());
            } else {
                ++others;
            }
        }
    }
    if (ec) {
        const std::string reason = fmt::format("cannot list directory: {}", ec.message());
        if (unreadable == nullptr) {
            throw Error(fmt::format("{}: {}", dir.string(), reason));
        }
        unreadable->push_back(InputError{dir.string(), 0, "", reason});
    }
    for (const auto& folder : folders) {
        walk(folder, found, others, unreadable);
    }
}

bool
is_yaml_name(const std::string& path)
{
    const auto ext = fs::path(path).extension().string();
    return ext == ".yaml" || ext == ".yml";
}

} // namespace

std::string
shown_path(const std::string& file)
{
    if (file.empty() || file.front() != '/') {
        return file;
    }
    std::error_code ec;
    const auto here = fs::current_path(ec);
    if (ec) {
        return file;
    }
    const auto relative = fs::path(file).lexically_normal().lexically_relative(here);
    return relative.empty() || *relative.begin() == ".." ? file : relative.string();
}

std::string
walked_extensions()
{
    std::string out;
    for (const auto ext : k_walked) {
        out += fmt::format("{}*{}", out.empty() ? "" : ", ", ext);
    }
    return out;
}

std::vector<std::string>
expand_inputs(const std::vector<std::string>& inputs, std::vector<std::string>* notes,
              std::vector<InputError>* unreadable)
{
    std::vector<std::string> files;
    for (const auto& input : inputs) {
        if (input == "-") {
            files.push_back(input);
            continue;
        }
        std::error_code ec;
        const auto status = fs::status(input, ec);
        if (ec || !fs::exists(status)) {
            throw Error(fmt::format("{}: no such file or directory", input));
        }
        if (!fs::is_directory(status)) {
            files.push_back(input);
            continue;
        }
        std::vector<std::string> found;
        std::size_t others = 0;
        walk(input, found, others, unreadable);
        if (found.empty()) {
            throw Error(fmt::format("{}: no file to read in this folder ({} other file{}; a folder "
                                    "is read for {})",
                                    input, others, others == 1 ? "" : "s", walked_extensions()));
        }
        if (notes != nullptr) {
            notes->push_back(fmt::format(
                "{}: {} file{} matched ({}){}", input, found.size(), found.size() == 1 ? "" : "s",
                walked_extensions(),
                others > 0 ? fmt::format(", {} other{} left aside", others, others == 1 ? "" : "s")
                           : ""));
        }
        std::sort(found.begin(), found.end());
        files.insert(files.end(), found.begin(), found.end());
    }
    return files;
}

struct Loader::Impl {
    const ruleset::Rules& rules;
    LoadOptions options;
    model::TokenEstimator estimator;
    AnthropicRequestParser request_parser;
    OpenAIChatParser chat_parser;
    OpenAIResponsesParser responses_parser;
    GeminiRequestParser gemini_parser;
    BedrockConverseParser bedrock_parser;
    TrajectoryReader trajectory_reader;
    OtelSpanReader span_reader;
    ResponseParser response_parser;
    od::parser parser;
    od::parser detect_parser;  // the first look at a record, on a document of its own
    od::parser element_parser; // one element of an array of records
    std::unordered_set<std::string> seen_request_ids;
    std::vector<ClaudeCodeReader::ProgressCall> progress_calls;
    LoadSummary summary;
    const RequestCallback* on_request = nullptr;
    const ErrorCallback* on_error = nullptr;
    // What the records of the current file are (see record()).
    enum class Shape { body, otlp, span, trajectory } m_shape = Shape::body;
    std::optional<model::ApiFormat> m_file_format;
    std::string m_not_json; // what the current file looks like when it is not JSON
    // Leading lines that are not JSON after which a file is "not JSON" as a whole.
    static constexpr std::size_t k_not_json_lines = 20;
    // Gemini explicit caches created by records read so far, by name.
    std::map<std::string, std::vector<model::Segment>> m_created_caches;

    Impl(const ruleset::Rules& r, LoadOptions o)
        : rules(r), options(o), estimator(r.tokens), request_parser(r, estimator),
          chat_parser(r, estimator), responses_parser(r, estimator), gemini_parser(r, estimator),
          bedrock_parser(r, estimator), trajectory_reader(chat_parser), span_reader(chat_parser)
    {
        for (BodyParser* p :
             std::initializer_list<BodyParser*>{&request_parser, &chat_parser, &responses_parser,
                                                &gemini_parser, &bedrock_parser}) {
            p->set_text_store(options.text_store);
            p->set_model_override(options.model_override);
        }
    }

    BodyParser&
    parser_for(model::ApiFormat format)
    {
        switch (format) {
        case model::ApiFormat::anthropic:
            return request_parser;
        case model::ApiFormat::openai_chat:
            return chat_parser;
        case model::ApiFormat::openai_responses:
            return responses_parser;
        case model::ApiFormat::gemini:
            return gemini_parser;
        case model::ApiFormat::bedrock_converse:
            return bedrock_parser;
        }
        return request_parser;
    }

    void
    error(const std::string& file, std::uint64_t line, std::string field, std::string reason)
    {
        ++summary.error_count;
        // The reason may quote the log (a key in a field of the wrong type,
        // an escape sequence): printed on stderr and in JSON errors[].
        InputError e{escape_control(file), line, safe_text(field), safe_text(reason)};
        if (on_error != nullptr && *on_error) {
            (*on_error)(e);
        }
        if (summary.errors.size() < LoadSummary::k_max_kept_errors) {
            summary.errors.push_back(std::move(e));
        }
    }

    void
    deliver(model::Request&& request)
    {
        if (request.started_at && ((options.since && *request.started_at < *options.since) ||
                                   (options.until && !(*request.started_at < *options.until)))) {
            ++summary.filtered;
            return;
        }
        make_printable(request);
        ++summary.requests;
        (*on_request)(std::move(request));
    }

    // The strings of a request that printers show, made safe to print:
    // no control character, no credential. The prompt's text is left as
    // it is, its bytes are what the cache sees.
    static void
    make_printable(model::Request& request)
    {
        for (std::string* s : {&request.id, &request.stream, &request.model, &request.served_model,
                               &request.route, &request.cache_key}) {
            if (needs_care(*s)) {
                *s = safe_text(*s);
            }
        }
        for (auto& p : request.params) {
            if (needs_care(p.value)) {
                p.value = safe_text(p.value);
            }
        }
        for (auto& note : request.notes) {
            note = safe_text(note);
        }
    }

    static bool
    needs_care(std::string_view s)
    {
        return std::any_of(s.begin(), s.end(),
                           [](char c) {
                               return static_cast<unsigned char>(c) < 0x20 || c == 0x7f ||
                                      (c & 0x80) != 0;
                           }) ||
               s.find("::") != std::string_view::npos || !find_secrets(s).empty();
    }

    // Runs one record's parse, turning every failure into a reported error.
    template <typename F>
    void
    guarded(const std::string& file, std::uint64_t line, F&& f)
    {
        try {
            f();
        } catch (const FieldError& e) {
            error(file, line, e.field(), e.reason());
        } catch (const simdjson::simdjson_error& e) {
            error(file, line, "", fmt::format("not valid JSON: {}", e.what()));
        }
    }

    static Timestamp
    time_value(od::value v)
    {
        od::json_type t{};
        if (v.type().get(t) != simdjson::SUCCESS) {
            throw FieldError("", "expected a time");
        }
        if (t == od::json_type::string) {
            std::string_view s;
            if (v.get_string().get(s) != simdjson::SUCCESS) {
                throw FieldError("", "expected a time");
            }
            auto parsed = parse_rfc3339(s);
            if (!parsed) {
                throw FieldError("", parsed.error());
            }
            return *parsed;
        }
        if (t == od::json_type::number) {
            double d = 0;
            if (v.get_double().get(d) != simdjson::SUCCESS) {
                throw FieldError("", "expected epoch seconds");
            }
            auto parsed = from_epoch_seconds(d);
            if (!parsed) {
                throw FieldError("", parsed.error());
            }
            return *parsed;
        }
        throw FieldError(
            "", fmt::format("expected an RFC 3339 string or epoch seconds, found {}", describe(t)));
    }

    // Members of an exchange record that are not part of the request body.
    static bool
    is_record_key(std::string_view key)
    {
        return key == "response" || key == "id" || key == "session" || key == "workspace" ||
               key == "started_at" || key == "first_token_at" || key == "ended_at" ||
               key == "provider" || key == "timestamp" || key == "latency_sec" || key == "kwargs" ||
               key == "startTime" || key == "endTime" || key == "completionStartTime" ||
               key == "cost" || key == "response_cost" || key == "context_window" ||
               key == "raw_messages" || key == "raw_response";
    }

    static std::string
    string_member(od::value v, const char* name)
    {
        return within(name, [&] {
            std::string_view s;
            if (v.get_string().get(s)) {
                throw FieldError("", "expected a string");
            }
            return std::string(s);
        });
    }

    static double
    number_member(od::value v, const char* name)
    {
        return within(name, [&] {
            double d = 0;
            if (v.get_double().get(d)) {
                throw FieldError("", "expected a number");
            }
            return d;
        });
    }

    // One exchange record, bare request body, per-call gateway log (LiteLLM,
    // OpenHands), trajectory document or OpenTelemetry export, as an object.
    //
    // Which API a body is written for is settled by a first look at the
    // record's members (ApiFormatDetector). That look walks the whole record,
    // so within a file the format found is kept: later records are parsed
    // with it directly, and looked at again only when a member the parse
    // meets, or an error, says they are written differently.
    //
    // Returns false, having delivered nothing, when a record parsed with the
    // kept format turns out to be written differently: the caller parses the
    // line again and calls it with `keep` false. The first look runs on a
    // document of its own (`text` is the record's JSON, padded): a document
    // that failed half way is never iterated again, simdjson does not promise
    // that works.
    bool
    record(od::object object, std::string_view text, std::size_t capacity, const std::string& file,
           std::uint64_t line, bool keep)
    {
        if (keep && m_file_format) {
            ApiFormatDetector keys;
            std::optional<model::Request> request;
            try {
                request = body_record(object, *m_file_format, file, line, &keys);
            } catch (const FieldError&) {
            }
            if (request && !keys.contradicts(*m_file_format)) {
                deliver(std::move(*request));
                return true;
            }
            m_file_format.reset();
            return false;
        }
        const auto format = detect_record(text, capacity);
        const auto deliver_one = [&](model::Request&& r) { deliver(std::move(r)); };
        if (m_shape == Shape::otlp || m_shape == Shape::span) {
            const auto skip = [&] { ++summary.skipped; };
            if (m_shape == Shape::otlp) {
                span_reader.read_export(
                    object, file, line, deliver_one, skip,
                    [&](const FieldError& e) { error(file, line, e.field(), e.reason()); });
            } else {
                span_reader.read_span(object, file, line, deliver_one, skip);
            }
            return true;
        }
        if (m_shape == Shape::trajectory) {
            trajectory_reader.read(object, file, deliver_one, [&](const FieldError& e) {
                error(file, line, e.field(), e.reason());
            });
            return true;
        }
        m_file_format = format;
        deliver(body_record(object, format, file, line, nullptr));
        return true;
    }

    // The first look: the record's shape (m_shape) and, for a body, its API.
    model::ApiFormat
    detect_record(std::string_view text, std::size_t capacity)
    {
        ApiFormatDetector detector;
        m_shape = Shape::body;
        od::document doc;
        od::object object;
        if (detect_parser.iterate(text.data(), text.size(), capacity).get(doc) ||
            doc.get_object().get(object)) {
            return detector.decide(); // the parse reports what is wrong
        }
        for (auto field : object) {
            std::string_view key;
            od::value v;
            if (field.unescaped_key().get(key) || field.value().get(v)) {
                break; // the parse reports it
            }
            if (key == "request") {
                od::object body;
                if (v.get_object().get(body) == simdjson::SUCCESS) {
                    for (auto member : body) {
                        std::string_view k;
                        od::value mv;
                        if (member.unescaped_key().get(k) || member.value().get(mv)) {
                            break;
                        }
                        const std::string owned(k);
                        detector.member(owned, mv);
                    }
                }
            } else if (key == "resourceSpans") {
                m_shape = Shape::otlp;
            } else if (key == "trajectory_format") {
                m_shape = Shape::trajectory;
            } else if (key == "attributes" || key == "traceId" || key == "spanId") {
                m_shape = Shape::span;
            } else if (!is_record_key(key)) {
                const std::string owned(key);
                detector.member(owned, v);
            }
        }
        return detector.decide();
    }

    // Parses a body record with the parser of `format`; `keys` (when given)
    // sees every body member on the way, for the check of a kept format.
    model::Request
    body_record(od::object& object, model::ApiFormat format, const std::string& file,
                std::uint64_t line, ApiFormatDetector* keys)
    {
        BodyParser& reader = parser_for(format);
        model::Request request;
        request.file = file;
        request.line = line;
        reader.begin(request);
        bool wrapped = false;
        bool bare = false;
        std::optional<ResponseInfo> response;
        std::string id;
        std::string session;
        std::string provider;
        std::optional<double> timestamp;
        std::optional<double> latency;
        std::optional<double> cost; // LiteLLM's cost or response_cost
        for (auto field : object) {
            std::string_view key;
            if (const auto e = field.unescaped_key().get(key); e) {
                throw FieldError("", fmt::format("invalid key: {}", simdjson::error_message(e)));
            }
            od::value v;
            if (const auto e = field.value().get(v); e) {
                throw FieldError(std::string(key), simdjson::error_message(e));
            }
            if (key == "request") {
                within("request", [&] {
                    od::object body;
                    if (v.get_object().get(body) != simdjson::SUCCESS) {
                        throw FieldError("", "expected a request body object");
                    }
                    for (auto member : body) {
                        std::string_view k;
                        od::value mv;
                        if (member.unescaped_key().get(k) || member.value().get(mv)) {
                            throw FieldError("", "invalid member");
                        }
                        const std::string owned(k); // the key view does not outlive the member
                        if (keys != nullptr) {
                            keys->key(owned);
                        }
                        reader.member(owned, mv);
                    }
                });
                wrapped = true;
            } else if (key == "response") {
                response = within("response", [&] { return response_parser.parse_value(v); });
            } else if (key == "id") {
                id = within("id", [&] {
                    od::json_type t{};
                    (void)v.type().get(t);
                    if (t == od::json_type::string) {
                        return std::string(v.get_string().value());
                    }
                    if (t == od::json_type::number) {
                        return std::string(v.raw_json_token());
                    }
                    throw FieldError(
                        "", fmt::format("expected a string or a number, found {}", describe(t)));
                });
                while (!id.empty() && id.back() == ' ') {
                    id.pop_back();
                }
            } else if (key == "session") {
                session = string_member(v, "session");
            } else if (key == "workspace") {
                request.workspace = string_member(v, "workspace");
            } else if (key == "provider" && v.type().value_unsafe() == od::json_type::object) {
                // OpenRouter's routing preferences in a bare body: not the
                // provider whose cache serves the request.
            } else if (key == "provider") {
                provider = string_member(v, "provider");
                if (!rules.providers.count(provider)) {
                    throw FieldError("provider",
                                     fmt::format("unknown provider \"{}\" (expected one of "
                                                 "anthropic, bedrock, openai, deepseek, gemini, "
                                                 "vllm, sglang)",
                                                 provider));
                }
            } else if (key == "started_at" || key == "startTime") {
                // startTime, completionStartTime, endTime: LiteLLM's logging payload.
                const std::string name(key);
                request.started_at = within(name, [&] { return time_value(v); });
            } else if (key == "first_token_at" || key == "completionStartTime") {
                const std::string name(key);
                request.first_token_at = within(name, [&] { return time_value(v); });
            } else if (key == "ended_at" || key == "endTime") {
                const std::string name(key);
                request.ended_at = within(name, [&] { return time_value(v); });
            } else if (key == "timestamp") {
                // Per-call logs (OpenHands): when the call was logged, after it ended.
                timestamp = number_member(v, "timestamp");
            } else if (key == "latency_sec") {
                latency = number_member(v, "latency_sec");
            } else if (key == "cost" || key == "response_cost") {
                double usd = 0;
                if (v.get_double().get(usd) == simdjson::SUCCESS && usd >= 0) {
                    cost = usd; // anything else is not a cost: ignored
                }
            } else if (key == "kwargs") {
                // The call's keyword arguments (OpenHands, LiteLLM): settings
                // such as tool_choice; tools and messages are logged beside.
                within("kwargs", [&] {
                    od::object kwargs;
                    if (v.get_object().get(kwargs) != simdjson::SUCCESS) {
                        return;
                    }
                    for (auto member : kwargs) {
                        const std::string k(key_of(member));
                        if (k != "tools" && k != "messages" && k != "functions" && k != "model") {
                            reader.member(k, value_of(member));
                        }
                    }
                });
            } else if (key == "resourceSpans" || key == "trajectory_format" ||
                       key == "attributes" || key == "traceId" || key == "spanId") {
                if (keys != nullptr) {
                    keys->key("\x01shape"); // not a body at all: look again
                }
            } else if (!is_record_key(key)) {
                const std::string owned(key);
                if (keys != nullptr) {
                    keys->key(owned);
                }
                if (reader.member(owned, v)) {
                    bare = true;
                }
            }
        }
        if (wrapped && bare) {
            throw FieldError("request",
                             "a record has either a \"request\" member or request fields "
                             "at the top level, not both");
        }
        if (!wrapped && !bare) {
            throw FieldError("request",
                             "missing (expected {\"request\": {...}, \"response\": {...}} "
                             "or a request body of a known API)");
        }
        request.id = id.empty() ? fmt::format("{}:{}", shown_path(file), line) : id;
        if (!session.empty()) {
            request.stream = session;
        }
        if (timestamp && !request.started_at) {
            const double start = *timestamp - latency.value_or(0);
            if (auto t = from_epoch_seconds(start)) {
                request.started_at = *t;
            }
            if (auto t = from_epoch_seconds(*timestamp); t && latency) {
                request.ended_at = *t;
            }
        }
        std::string fallback_model;
        if (response) {
            if (!response->error.empty()) {
                request.notes.push_back(
                    fmt::format("the response was an error: {}", response->error));
            }
            request.usage = response->usage;
            if (request.usage && cost && !request.usage->cost_usd) {
                request.usage->cost_usd = cost;
            }
            request.provider_miss_reason = response->cache_miss_reason;
            request.route = response->route;
            fallback_model = response->model;
            if (response->usage && response->usage->summed_from_iterations) {
                request.notes.push_back(
                    "usage summed from usage.iterations[] (a compaction response)");
            }
            if (!request.started_at && response->created) {
                if (auto t = from_epoch_seconds(*response->created)) {
                    request.started_at = *t; // the response's creation time, about the start
                }
            }
            if (!request.ended_at && response->completed) {
                if (auto t = from_epoch_seconds(*response->completed)) {
                    request.ended_at = *t;
                }
            }
            // DeepSeek's usage names it even behind a gateway with another model name.
            if (provider.empty() && response->usage && response->usage->dialect == "deepseek") {
                provider = "deepseek";
            }
        }
        if (!provider.empty()) {
            reader.set_provider_override(provider);
        }
        reader.finish(fallback_model);
        if (response) {
            if (!response->model.empty() && ruleset::normalize_model_id(response->model) !=
                                                ruleset::normalize_model_id(request.model)) {
                request.served_model = response->model;
            }
            if (request.cache_create && !response->cache_name.empty()) {
                // What requests that read this cache have as their prefix.
                m_created_caches[response->cache_name] = request.segments;
            }
            if (request.cache_create) {
                request.cache_create->name = response->cache_name;
                if (!request.cache_create->expire_time && !response->cache_expire.empty()) {
                    if (auto t = parse_rfc3339(response->cache_expire)) {
                        request.cache_create->expire_time = *t;
                    }
                }
            }
            if (!response->message_json.empty()) {
                try {
                    reader.continuation(response->message_json);
                } catch (const FieldError& e) {
                    request.notes.push_back(
                        fmt::format("the response message could not be read back ({}: {})",
                                    e.field(), e.reason()));
                }
            }
        }
        if (!request.cached_content.empty()) {
            inline_cached_content(request);
        }
        return request;
    }

    // A request that reads a Gemini explicit cache made earlier in the log:
    // the cache's content replaces the unlogged stand-in, so that the
    // request's prefix is known block by block and its chain continues the
    // content's.
    void
    inline_cached_content(model::Request& request)
    {
        const auto it = m_created_caches.find(request.cached_content);
        if (it == m_created_caches.end() || request.segments.empty() ||
            request.segments.front().kind != model::SegmentKind::unlogged) {
            return;
        }
        std::vector<model::Segment> segments = it->second;
        for (auto& s : segments) {
            s.path.cached = true;
        }
        segments.insert(segments.end(), request.segments.begin() + 1, request.segments.end());
        request.segments = std::move(segments);
        for (auto& note : request.notes) {
            if (note.rfind("reads the explicit cache", 0) == 0) {
                note = fmt::format("reads the explicit cache {}, created earlier in the log",
                                   request.cached_content);
            }
        }
        model::assign_lookback_positions(request, false);
        model::assign_tokens(request);
        model::compute_chain(request, rules.provider(request.provider).render_order);
    }

    void
    json_line(std::string_view text, const std::string& file, std::uint64_t line)
    {
        ++summary.records;
        guarded(file, line, [&] {
            // At most twice: once with the file's kept format, once looking afresh.
            for (bool keep : {true, false}) {
                if (parse_line(text, file, line, keep)) {
                    return;
                }
            }
        });
    }

    // One line (or document): a record object or an array of records.
    bool
    parse_line(std::string_view text, const std::string& file, std::uint64_t line, bool keep)
    {
        od::document doc;
        if (const auto e =
                parser.iterate(text.data(), text.size(), text.size() + LineReader::k_padding)
                    .get(doc);
            e) {
            throw FieldError("", fmt::format("not valid JSON: {}", simdjson::error_message(e)));
        }
        od::json_type t{};
        if (const auto e = doc.type().get(t); e) {
            throw FieldError("", fmt::format("not valid JSON: {}", simdjson::error_message(e)));
        }
        if (t == od::json_type::array) {
            // A JSON array of records; each is looked at afresh (a second
            // pass over the array would deliver its first records twice).
            m_file_format.reset();
            std::size_t i = 0;
            for (auto element : doc.get_array()) {
                array_element(element_json(std::move(element), i), file, line, i);
                ++i;
            }
            m_file_format.reset();
        } else if (t == od::json_type::object) {
            if (!record(doc.get_object().value(), text, text.size() + LineReader::k_padding, file,
                        line, keep)) {
                return false;
            }
        } else {
            throw FieldError("", fmt::format("expected a JSON object, found {}", describe(t)));
        }
        // simdjson 3.0 does not flag text after a complete top-level object.
        const char* rest = nullptr;
        if (doc.current_location().get(rest) == simdjson::SUCCESS && rest != nullptr) {
            throw FieldError("", fmt::format("unexpected text after the JSON value at column {}",
                                             rest - text.data() + 1));
        }
        return true;
    }

    // The JSON text of an array element; a syntax error ends the array.
    static std::string_view
    element_json(simdjson::simdjson_result<od::value> element, std::size_t index)
    {
        od::value v;
        od::json_type t{};
        std::string_view raw;
        bool failed = std::move(element).get(v) || v.type().get(t);
        if (!failed && t == od::json_type::object) {
            od::object o;
            failed = v.get_object().get(o) || o.raw_json().get(raw);
        } else if (!failed && t == od::json_type::array) {
            od::array a;
            failed = v.get_array().get(a) || a.raw_json().get(raw);
        } else if (!failed) {
            raw = v.raw_json_token();
        }
        if (failed) {
            throw FieldError(fmt::format("[{}]", index), "not valid JSON");
        }
        return raw;
    }

    // One element of a JSON array of records, parsed on a document of its
    // own: a broken element costs that element only.
    void
    array_element(std::string_view raw, const std::string& file, std::uint64_t line,
                  std::size_t index)
    {
        const simdjson::padded_string padded(raw);
        try {
            within("", index, [&] {
                od::document element;
                od::object o;
                if (element_parser.iterate(padded).get(element) || element.get_object().get(o)) {
                    throw FieldError("", "expected a record object");
                }
                record(o, padded, padded.size() + simdjson::SIMDJSON_PADDING, file, line, false);
            });
        } catch (const FieldError& e) {
            error(file, line, e.field(), e.reason());
        } catch (const simdjson::simdjson_error& e) {
            error(file, line, fmt::format("[{}]", index),
                  fmt::format("not valid JSON: {}", e.what()));
        }
    }

    void
    exchange_file(LineReader& reader, const std::string& file)
    {
        LineReader::Line line;
        // A file that does not start like JSON is one error for the file,
        // unless JSON lines follow within the first lines (a log whose first
        // line was cut by rotation): then each leading line is an error.
        bool undecided = !m_not_json.empty();
        std::vector<std::uint64_t> leading;
        for (;;) {
            auto more = reader.next(line);
            if (!more) {
                error(file, 0, "", more.error());
                return;
            }
            if (!*more || (undecided && leading.size() == k_not_json_lines)) {
                if (undecided) {
                    ++summary.records;
                    error(file, 0, "", fmt::format("not JSON: {}", m_not_json));
                }
                return;
            }
            if (line.too_long) {
                ++summary.records;
                error(
                    file, line.number, "",
                    fmt::format("record longer than {} bytes, skipped", options.max_record_bytes));
                continue;
            }
            if (line.text.find_first_not_of(" \t") == std::string_view::npos) {
                ++summary.skipped;
                continue;
            }
            if (undecided) {
                const auto start = line.text.find_first_not_of(" \t\xEF\xBB\xBF");
                if (start == std::string_view::npos ||
                    (line.text[start] != '{' && line.text[start] != '[')) {
                    leading.push_back(line.number);
                    continue;
                }
                undecided = false;
                for (const auto n : leading) {
                    ++summary.records;
                    error(file, n, "", "not JSON: the line does not start with { or [");
                }
            }
            json_line(line.text, file, line.number);
        }
    }

    void
    document_file(LineReader& reader, const std::string& file)
    {
        auto text = reader.rest();
        if (!text) {
            error(file, 0, "", text.error());
            return;
        }
        json_line(*text, file, 1);
    }

    void
    sse_file(LineReader& reader, const std::string& file)
    {
        ResponseInfo info;
        LineReader::Line line;
        std::uint64_t first_line = 0;
        ++summary.records;
        for (;;) {
            auto more = reader.next(line);
            if (!more) {
                error(file, 0, "", more.error());
                return;
            }
            if (!*more) {
                break;
            }
            if (first_line == 0 && !line.text.empty()) {
                first_line = line.number;
            }
            guarded(file, line.number, [&] { response_parser.sse_line(line.text, info); });
        }
        guarded(file, line.number, [&] { response_parser.sse_line("", info); });
        if (!info.usage && info.error.empty()) {
            error(file, 0, "", "no message_start or message_delta usage in this SSE stream");
            return;
        }
        // Only a response was logged: the request is known by its usage alone.
        model::Request request;
        request.file = file;
        request.line = first_line;
        request.id = fmt::format("{}:{}", shown_path(file), first_line);
        request.model = info.model;
        request.usage = info.usage;
        if (request.usage) {
            request.usage->origin = model::Usage::Origin::sse;
        }
        request.prompt_logged = false;
        request.notes.push_back(
            "only the response (an SSE stream) was logged; the prompt is unknown");
        if (!info.error.empty()) {
            request.notes.push_back(fmt::format("the response was an error: {}", info.error));
        }
        deliver(std::move(request));
    }

    void
    claude_code_file(LineReader& reader, const std::string& file)
    {
        ClaudeCodeReader cc(request_parser, rules, file);
        LineReader::Line line;
        for (;;) {
            auto more = reader.next(line);
            if (!more) {
                error(file, 0, "", more.error());
                break;
            }
            if (!*more) {
                break;
            }
            if (line.too_long) {
                error(file, line.number, "",
                      fmt::format("line longer than {} bytes, skipped", options.max_record_bytes));
                continue;
            }
            try {
                const auto kind = cc.line(parser, line.text, line.number);
                if (kind == ClaudeCodeReader::LineKind::message) {
                    ++summary.records;
                } else {
                    ++summary.skipped;
                }
            } catch (const FieldError& e) {
                ++summary.records;
                error(file, line.number, e.field(), e.reason());
            } catch (const simdjson::simdjson_error& e) {
                ++summary.records;
                error(file, line.number, "", fmt::format("not valid JSON: {}", e.what()));
            }
        }
        cc.finish([&](model::Request&& r) { deliver(std::move(r)); }, seen_request_ids,
                  summary.duplicates);
        for (auto& call : cc.take_progress()) {
            progress_calls.push_back(std::move(call));
        }
    }

    // Subagent calls seen only in progress lines, once every transcript is
    // read: a call whose subagent transcript was read is not counted twice.
    void
    deliver_progress_calls()
    {
        for (auto& call : progress_calls) {
            if (!seen_request_ids.insert(call.request_id).second) {
                continue;
            }
            deliver(ClaudeCodeReader::progress_request(std::move(call)));
        }
        progress_calls.clear();
    }

    // A VCR cassette: each recorded model call is read as an exchange record.
    void
    cassette_file(LineReader& reader, const std::string& file)
    {
        auto text = reader.rest();
        if (!text) {
            error(file, 0, "", text.error());
            return;
        }
        const auto problem = CassetteReader::read(
            std::string(*text),
            [&](std::string_view json, std::uint64_t line) {
                std::string padded(json);
                padded.append(LineReader::k_padding, ' ');
                m_file_format.reset(); // one cassette may call several APIs
                json_line(std::string_view(padded.data(), json.size()), file, line);
            },
            [&] { ++summary.skipped; },
            [&](std::uint64_t line, const std::string& reason) {
                ++summary.records;
                error(file, line, "", reason);
            });
        if (!problem.empty()) {
            ++summary.records;
            error(file, 0, "", problem);
        }
    }

    // Picks a format from the first non-blank line (then rewinds to it). A
    // first line that is not a whole JSON value decides nothing alone: it
    // may open a document written over many lines, or be a broken record
    // of a JSONL file, which a record on one of the next lines shows.
    InputFormat
    detect(LineReader& reader)
    {
        LineReader::Line line;
        bool marked = false;
        int looked = 0;
        for (;;) {
            auto more = reader.next(line);
            if (!more || !*more || line.too_long) {
                if (marked) {
                    reader.rewind();
                    return InputFormat::request;
                }
                if (more && *more) {
                    reader.unread();
                }
                return InputFormat::exchange; // empty or unreadable: reported by the reader
            }
            const auto start = line.text.find_first_not_of(" \t");
            if (start == std::string_view::npos) {
                summary.skipped += marked ? 0 : 1;
                continue;
            }
            const std::string_view text = line.text.substr(start);
            if (marked) {
                if (start == 0 && text.front() == '{' && whole_record(line.text)) {
                    reader.rewind();
                    return looks_like_claude_code(text) ? InputFormat::claude_code
                                                        : InputFormat::exchange;
                }
                if (++looked >= k_lines_to_decide) {
                    reader.rewind();
                    return InputFormat::request;
                }
                continue;
            }
            if (text.rfind("event:", 0) == 0 || text.rfind("data:", 0) == 0 ||
                text.front() == ':') {
                reader.unread();
                return InputFormat::sse;
            }
            if (text.rfind("interactions:", 0) == 0) {
                reader.unread();
                return InputFormat::vcr;
            }
            if (text.front() != '{' && text.front() != '[') {
                // Not JSON at all: one error for the file, not one per line.
                reader.unread();
                m_not_json = describe_non_json(text);
                return InputFormat::exchange;
            }
            if (whole_value(line.text)) {
                reader.unread();
                return text.front() == '{' && looks_like_claude_code(text)
                           ? InputFormat::claude_code
                           : InputFormat::exchange;
            }
            reader.mark_last_line();
            marked = true;
        }
    }

    // How many lines after a broken first one are looked at for a record.
    static constexpr int k_lines_to_decide = 8;

    // One complete JSON value on this line?
    bool
    whole_value(std::string_view text)
    {
        od::document doc;
        std::string_view raw;
        return parser.iterate(text.data(), text.size(), text.size() + LineReader::k_padding)
                       .get(doc) == simdjson::SUCCESS &&
               doc.raw_json().get(raw) == simdjson::SUCCESS;
    }

    // A record of a JSONL file: an object closed on its own line (inside a
    // document written over many lines, objects are indented or followed by
    // a comma).
    bool
    whole_record(std::string_view text)
    {
        const auto last = text.find_last_not_of(" \t");
        return last != std::string_view::npos && text[last] == '}' && whole_value(text);
    }

    void
    file(const std::string& path)
    {
        m_file_format.reset();
        if (options.since && path != "-") {
            // Records are appended as they happen: a file last written before
            // --since holds nothing newer.
            std::error_code ec;
            const auto written = fs::last_write_time(path, ec);
            if (!ec) {
                const auto since_epoch = std::chrono::duration_cast<std::chrono::microseconds>(
                    std::chrono::file_clock::to_sys(written).time_since_epoch());
                if (since_epoch.count() < options.since->micros) {
                    ++summary.files_skipped;
                    return;
                }
            }
        }
        ++summary.files;
        auto opened = LineReader::open(path, options.max_record_bytes);
        if (!opened) {
            error(path, 0, "", opened.error());
            return;
        }
        LineReader& reader = **opened;
        m_not_json.clear();
        const InputFormat format = options.format != InputFormat::auto_detect ? options.format
                                   : is_yaml_name(path)                       ? InputFormat::vcr
                                                                              : detect(reader);
        switch (format) {
        case InputFormat::request:
            document_file(reader, path);
            break;
        case InputFormat::sse:
            sse_file(reader, path);
            break;
        case InputFormat::claude_code:
            claude_code_file(reader, path);
            break;
        case InputFormat::vcr:
            cassette_file(reader, path);
            break;
        case InputFormat::exchange:
        case InputFormat::auto_detect:
            exchange_file(reader, path);
            break;
        }
        summary.bytes += reader.bytes_read();
    }
};

Loader::Loader(const ruleset::Rules& rules, LoadOptions options)
    : m_impl(std::make_unique<Impl>(rules, options))
{}

Loader::~Loader() = default;

LoadSummary
Loader::load(const std::vector<std::string>& inputs, const RequestCallback& on_request,
             const ErrorCallback& on_error)
{
    m_impl->summary = LoadSummary{};
    m_impl->on_request = &on_request;
    m_impl->on_error = &on_error;
    std::vector<InputError> unreadable;
    const auto files = expand_inputs(inputs, &m_impl->summary.notes, &unreadable);
    for (const auto& e : unreadable) {
        m_impl->error(e.file, 0, "", e.reason);
    }
    for (const auto& path : files) {
        m_impl->file(path);
    }
    m_impl->deliver_progress_calls();
    return m_impl->summary;
}

} // namespace cachewise::ingest
