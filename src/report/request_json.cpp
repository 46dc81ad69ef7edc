#include "report/request_json.hpp"

#include "model/breakpoints.hpp"
#include "util/escape.hpp"
#include "util/time.hpp"

namespace cachewise::report {

namespace {

Json
optional_count(const std::optional<std::int64_t>& v)
{
    return v ? Json(*v) : Json(nullptr);
}

Json
optional_time(const std::optional<Timestamp>& t)
{
    return t ? Json(format_rfc3339(*t)) : Json(nullptr);
}

} // namespace

Json
usage_to_json(const model::Usage& u)
{
    Json j;
    j["input_tokens"] = optional_count(u.input_tokens);
    j["cache_read_input_tokens"] = optional_count(u.cache_read);
    j["cache_creation_input_tokens"] = optional_count(u.cache_write);
    j["cache_creation_5m"] = optional_count(u.cache_write_5m);
    j["cache_creation_1h"] = optional_count(u.cache_write_1h);
    j["output_tokens"] = optional_count(u.output_tokens);
    j["total_input_tokens"] = optional_count(u.total_input());
    j["schema"] = std::string(ruleset::to_string(u.schema));
    if (u.schema == model::UsageSchema::inclusive) {
        j["dialect"] = std::string(u.dialect);
        j["prompt_tokens"] = optional_count(u.prompt_tokens);
        j["cached_tokens"] = optional_count(u.cached_tokens);
        j["cache_write_tokens"] = optional_count(u.cache_write_tokens);
        j["prompt_cache_hit_tokens"] = optional_count(u.hit_tokens);
        j["prompt_cache_miss_tokens"] = optional_count(u.miss_tokens);
    }
    j["origin"] = std::string(model::to_string(u.origin));
    if (u.summed_from_iterations) {
        j["summed_from_iterations"] = true;
    }
    return j;
}

// One segment of a request: where it is, what it holds, its tokens and marker.
Json
segment_to_json(const model::Segment& s)
{
    Json seg;
    seg["path"] = s.path.str();
    seg["kind"] = std::string(model::to_string(s.kind));
    seg["role"] =
        s.role == model::Role::none ? Json(nullptr) : Json(std::string(model::to_string(s.role)));
    seg["tokens"] = s.tokens;
    seg["cumulative_tokens"] = s.cumulative_tokens;
    seg["token_source"] = std::string(model::to_string(s.token_source));
    seg["cache_control"] = s.cache_control
                               ? Json{{"type", "ephemeral"},
                                      {"ttl", std::string(model::to_string(s.cache_control->ttl))}}
                               : Json(nullptr);
    seg["cache_control_allowed"] = s.cache_control_allowed;
    seg["lookback_position"] = s.lookback_position;
    seg["bytes"] = s.bytes;
    seg["content_hash"] = s.content.hex();
    seg["chain"] = s.chain.hex();
    return seg;
}

Json
request_to_json(const model::Request& r)
{
    Json j;
    j["id"] = r.id;
    j["stream"] = or_null(r.stream);
    j["file"] = safe_text(r.file);
    j["line"] = r.line;
    j["provider"] = r.provider;
    j["format"] = std::string(model::to_string(r.format));
    j["model"] = r.model;
    j["served_model"] = or_null(r.served_model);
    j["route"] = or_null(r.route);
    j["prompt_cache_key"] = or_null(r.cache_key);
    j["retention"] = or_null(r.retention);
    j["started_at"] = optional_time(r.started_at);
    j["first_token_at"] = optional_time(r.first_token_at);
    j["ended_at"] = optional_time(r.ended_at);
    j["prompt_logged"] = r.prompt_logged;
    Json params = Json::object();
    for (const auto& p : r.params) {
        params[p.name] = {{"value", p.present ? Json(p.value) : Json(nullptr)},
                          {"invalidates_from", std::string(ruleset::to_string(p.level))}};
    }
    j["params"] = std::move(params);
    const auto automatic = model::automatic_breakpoint(r);
    if (r.auto_cache_control) {
        j["automatic_cache_control"] = {
            {"ttl", std::string(model::to_string(r.auto_cache_control->ttl))},
            {"lands_on", automatic ? Json(r.segments[*automatic].path.str()) : Json(nullptr)}};
    } else {
        j["automatic_cache_control"] = nullptr;
    }
    j["segments"] = json_array(r.segments, segment_to_json);
    j["prompt_tokens"] = r.prompt_tokens();
    j["usage"] = r.usage ? usage_to_json(*r.usage) : Json(nullptr);
    j["notes"] = r.notes;
    return j;
}

Json
error_to_json(const ingest::InputError& e)
{
    Json j;
    j["file"] = e.file; // made safe with the error
    j["line"] = or_null(e.line);
    j["field"] = or_null(e.field);
    j["reason"] = e.reason;
    return j;
}

int
json_schema_version(std::string_view command)
{
    return command == "audit" ? 2 : 1;
}

Json
json_document(std::string_view command, int schema_version)
{
    Json document;
    document["schema_version"] = schema_version;
    document["command"] = command;
    return document;
}

void
dump_with_rows(const Json& document, std::size_t count,
               const std::function<void(std::size_t, JsonWriter&)>& row, std::ostream& out)
{
    const std::string text = document.dump(2, ' ', false, Json::error_handler_t::replace);
    // A top-level member sits at exactly two spaces; strings hold no raw
    // newline, so this cannot be met inside a value.
    const std::string_view marker = "\n  \"requests\": []";
    const std::size_t at = text.find(marker);
    if (at == std::string::npos || count == 0) {
        out << text << "\n";
        return;
    }
    out.write(text.data(), static_cast<std::streamsize>(at + marker.size() - 2));
    out << "[\n";
    std::string rows;
    for (std::size_t i = 0; i < count; ++i) {
        rows += "    ";
        JsonWriter writer(rows, 4); // a row's members at six spaces, as dump(2) puts them
        row(i, writer);
        rows += i + 1 < count ? ",\n" : "\n";
        if (rows.size() >= (std::size_t{1} << 16)) {
            out.write(rows.data(), static_cast<std::streamsize>(rows.size()));
            rows.clear();
        }
    }
    out.write(rows.data(), static_cast<std::streamsize>(rows.size()));
    out << "  ]";
    const std::size_t rest = at + marker.size();
    out.write(text.data() + rest, static_cast<std::streamsize>(text.size() - rest));
    out << "\n";
}

void
add_load_json(Json& document, const ingest::LoadSummary& summary)
{
    document["errors"] = json_array(summary.errors, error_to_json);
    document["load"] = summary_to_json(summary);
}

Json
summary_to_json(const ingest::LoadSummary& s)
{
    Json j;
    j["files"] = s.files;
    j["bytes"] = s.bytes;
    j["records"] = s.records;
    j["requests"] = s.requests;
    j["skipped_lines"] = s.skipped;
    j["duplicates"] = s.duplicates;
    j["filtered"] = s.filtered;
    j["filtered_untimed"] = s.filtered_untimed;
    j["files_skipped"] = s.files_skipped;
    j["errors"] = s.error_count;
    return j;
}

} // namespace cachewise::report
