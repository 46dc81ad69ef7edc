#include "ingest/json_render.hpp"

#include "ingest/field_error.hpp"
#include "ingest/ondemand.hpp"
#include "util/escape.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <immintrin.h>
#endif

namespace cachewise::ingest {

namespace {

constexpr std::array<bool, 256>
make_escape_table()
{
    std::array<bool, 256> t{};
    for (int c = 0; c < 0x20; ++c) {
        t[static_cast<std::size_t>(c)] = true;
    }
    t['"'] = true;
    t['\\'] = true;
    return t;
}

constexpr auto k_needs_escape = make_escape_table();

// The first byte at or after p that needs an escape (a control character,
// '"' or '\\'), or end. Prompt text runs for hundreds of bytes between
// escapes: 16 bytes a step instead of one.
const char*
find_escape(const char* p, const char* const end)
{
#if defined(__SSE2__)
    const __m128i quote = _mm_set1_epi8('"');
    const __m128i backslash = _mm_set1_epi8('\\');
    // c < 0x20 as unsigned: max(c, 0x1f) == 0x1f.
    const __m128i control = _mm_set1_epi8(0x1f);
    while (end - p >= 16) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
        const __m128i hit =
            _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)),
                         _mm_cmpeq_epi8(_mm_max_epu8(v, control), control));
        const int mask = _mm_movemask_epi8(hit);
        if (mask != 0) {
            return p + __builtin_ctz(static_cast<unsigned>(mask));
        }
        p += 16;
    }
#endif
    while (p < end && !k_needs_escape[static_cast<unsigned char>(*p)]) {
        ++p;
    }
    return p;
}

// Keys whose string values are not prompt text: type tags, media types,
// opaque signatures and base64 payloads (estimated separately).
bool
is_uncounted_key(std::string_view key)
{
    return key == "type" || key == "media_type" || key == "data" || key == "signature" ||
           key == "mimeType" || key == "mime_type" || key == "bytes" || key == "detail" ||
           key == "thoughtSignature" || key == "thought_signature" || key == "encrypted_content" ||
           key == "format";
}

// Top-level members that name a block's kind in formats without "type".
bool
is_tag_key(std::string_view key)
{
    return key == "text" || key == "functionCall" || key == "function_call" ||
           key == "functionResponse" || key == "function_response" || key == "inlineData" ||
           key == "inline_data" || key == "fileData" || key == "file_data" || key == "toolUse" ||
           key == "toolResult" || key == "image" || key == "document" ||
           key == "reasoningContent" || key == "executableCode" || key == "codeExecutionResult" ||
           key == "video";
}

// Inline media that is estimated per image rather than by its bytes.
bool
is_inline_media_key(std::string_view key)
{
    return key == "inlineData" || key == "inline_data" || key == "fileData" || key == "file_data";
}

std::string_view
trim_token(std::string_view token)
{
    while (!token.empty() && (token.back() == ' ' || token.back() == '\n' || token.back() == '\r' ||
                              token.back() == '\t')) {
        token.remove_suffix(1);
    }
    return token;
}

bool
is_json_number(std::string_view s)
{
    std::size_t i = 0;
    const auto digit = [&](std::size_t k) { return k < s.size() && s[k] >= '0' && s[k] <= '9'; };
    if (i < s.size() && s[i] == '-') {
        ++i;
    }
    if (!digit(i)) {
        return false;
    }
    if (s[i] == '0') {
        ++i;
    } else {
        while (digit(i)) {
            ++i;
        }
    }
    if (i < s.size() && s[i] == '.') {
        ++i;
        if (!digit(i)) {
            return false;
        }
        while (digit(i)) {
            ++i;
        }
    }
    if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
        ++i;
        if (i < s.size() && (s[i] == '+' || s[i] == '-')) {
            ++i;
        }
        if (!digit(i)) {
            return false;
        }
        while (digit(i)) {
            ++i;
        }
    }
    return i == s.size();
}

} // namespace

// Members whose value the API renders into the prompt as JSON text, so their
// key order is part of the prompt.
bool
JsonRenderer::is_payload_key(std::string_view key) const
{
    switch (m_format) {
    case model::ApiFormat::anthropic:
        return key == "input_schema" || key == "input";
    case model::ApiFormat::openai_chat:
    case model::ApiFormat::openai_responses:
        return key == "parameters" || key == "schema";
    case model::ApiFormat::gemini:
        return key == "parameters" || key == "parametersJsonSchema" ||
               key == "parameters_json_schema" || key == "args" || key == "response";
    case model::ApiFormat::bedrock_converse:
        return key == "json" || key == "input";
    }
    return false;
}

bool
JsonRenderer::is_marker_key(std::string_view key) const
{
    return key == "cache_control" ||
           (key == "prompt_cache_breakpoint" && (m_format == model::ApiFormat::openai_chat ||
                                                 m_format == model::ApiFormat::openai_responses));
}

model::CacheControl
parse_breakpoint_marker(od::value v)
{
    const auto type = get(v.type(), "a value");
    if (type != od::json_type::object) {
        throw FieldError("", fmt::format("expected a breakpoint object such as {{\"mode\": "
                                         "\"explicit\"}}, found {}",
                                         describe(type)));
    }
    model::CacheControl cc;
    for (auto field : get(v.get_object(), "an object")) {
        const std::string_view key = get(field.unescaped_key(), "a key");
        od::value member = get(field.value(), "a value");
        if (key == "ttl" && get(member.type(), "a value") == od::json_type::string) {
            const auto ttl = get(member.get_string(), "a string");
            if (ttl == "1h") {
                cc.ttl = model::Ttl::one_hour;
            } else if (ttl != "5m" && ttl != "30m") {
                throw FieldError(
                    "ttl", fmt::format("expected \"5m\", \"1h\" or \"30m\", found \"{}\"", ttl));
            }
        }
    }
    return cc;
}

std::optional<model::CacheControl>
parse_cache_control(od::value v)
{
    if (!present(v, od::json_type::object, "an object such as {\"type\": \"ephemeral\"}")) {
        return std::nullopt;
    }
    model::CacheControl cc;
    bool has_type = false;
    for (auto field : get(v.get_object(), "an object")) {
        const std::string_view key = get(field.unescaped_key(), "a key");
        od::value member = get(field.value(), "a value");
        if (key == "type") {
            const auto t = within("type", [&] { return get_string(member, "\"ephemeral\""); });
            if (t != "ephemeral") {
                throw FieldError(
                    "type",
                    fmt::format("expected \"ephemeral\" (the only cache type), found \"{}\"", t));
            }
            has_type = true;
        } else if (key == "ttl") {
            const auto ttl = within("ttl", [&] { return get_string(member, "\"5m\" or \"1h\""); });
            if (ttl == "5m") {
                cc.ttl = model::Ttl::five_minutes;
            } else if (ttl == "1h") {
                cc.ttl = model::Ttl::one_hour;
            } else {
                throw FieldError("ttl",
                                 fmt::format("expected \"5m\" or \"1h\", found \"{}\"", ttl));
            }
        }
    }
    if (!has_type) {
        throw FieldError("type", "missing (expected \"ephemeral\")");
    }
    return cc;
}

namespace {

// The length of the canonical escape at p (a byte that needs one), or 0
// when it is not one: a control character as it is, an escape
// append_json_string does not write.
std::size_t
canonical_escape(const char* p, const char* end)
{
    if (*p != '\\' || end - p < 2) {
        return 0;
    }
    const char e = p[1];
    if (e == '"' || e == '\\' || e == 'n' || e == 'r' || e == 't' || e == 'b' || e == 'f') {
        return 2;
    }
    // Only control characters without a short escape, as \u00xx.
    if (e != 'u' || end - p < 6 || p[2] != '0' || p[3] != '0' || (p[4] != '0' && p[4] != '1')) {
        return 0;
    }
    const char x = p[5];
    const int low = x >= '0' && x <= '9' ? x - '0' : x >= 'a' && x <= 'f' ? x - 'a' + 10 : -1;
    const int c = (p[4] - '0') * 16 + low;
    return low < 0 || c == '\b' || c == '\f' || c == '\n' || c == '\r' || c == '\t' ? 0 : 6;
}

#if defined(__SSE2__)
// Bit i: p[i] needs an escape. Reads 64 bytes.
std::uint64_t
escape_mask(const char* p)
{
    const __m128i quote = _mm_set1_epi8('"');
    const __m128i backslash = _mm_set1_epi8('\\');
    const __m128i control = _mm_set1_epi8(0x1f);
    std::uint64_t mask = 0;
    for (int b = 0; b < 4; ++b) {
        const __m128i v =
            _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + std::ptrdiff_t{16} * b));
        const __m128i hit =
            _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)),
                         _mm_cmpeq_epi8(_mm_max_epu8(v, control), control));
        mask |= static_cast<std::uint64_t>(static_cast<unsigned>(_mm_movemask_epi8(hit)))
                << (16 * b);
    }
    return mask;
}
#endif

} // namespace

bool
is_canonical_token(std::string_view token)
{
    if (token.size() < 2 || token.front() != '"' || token.back() != '"') {
        return false;
    }
    const char* p = token.data() + 1;
    const char* const end = token.data() + token.size() - 1;
#if defined(__SSE2__)
    // Prompt text escapes a newline every few dozen bytes: the escapes of 64
    // bytes are taken from one mask.
    while (end - p >= 64) {
        std::uint64_t mask = escape_mask(p);
        std::size_t done = 64;
        while (mask != 0) {
            const auto at = static_cast<std::size_t>(__builtin_ctzll(mask));
            const std::size_t length = canonical_escape(p + at, end);
            if (length == 0) {
                return false;
            }
            done = std::max<std::size_t>(64, at + length);
            if (at + length >= 64) {
                break;
            }
            mask &= ~std::uint64_t{0} << (at + length); // the escaped bytes are not escapes
        }
        p += done;
    }
#endif
    while ((p = find_escape(p, end)) < end) {
        const std::size_t length = canonical_escape(p, end);
        if (length == 0) {
            return false;
        }
        p += length;
    }
    return true;
}

void
append_json_string(std::string& out, std::string_view text)
{
    static constexpr char k_hex[] = "0123456789abcdef";
    out.push_back('"');
    const char* p = text.data();
    const char* const end = p + text.size();
    while (p < end) {
        const char* run = p;
        p = find_escape(p, end);
        out.append(run, static_cast<std::size_t>(p - run));
        if (p == end) {
            break;
        }
        const auto c = static_cast<unsigned char>(*p++);
        if (const std::string_view e = json_short_escape(c); !e.empty()) {
            out += e;
        } else {
            out += "\\u00";
            out.push_back(k_hex[c >> 4]);
            out.push_back(k_hex[c & 0xF]);
        }
    }
    out.push_back('"');
}

struct JsonRenderer::ObjectState {
    std::string_view type;
    std::string_view mime;
    std::string_view data;
    bool has_data = false;
    bool enabled_true = false;
    std::size_t base64_bytes = 0; // base64 data found below, not yet attributed
};

std::string_view
JsonRenderer::string(od::value v)
{
    // Fast path: a string without escapes is its own canonical form.
    const std::string_view token = trim_token(v.raw_json_token());
    if (token.size() >= 2 && std::memchr(token.data(), '\\', token.size()) == nullptr) {
        return token.substr(1, token.size() - 2);
    }
    return get(v.get_string(), "a string");
}

void
JsonRenderer::value(od::value v, bool payload, int depth, std::string_view via_key,
                    RenderStats& stats, ObjectState* parent)
{
    const auto type = get(v.type(), "a JSON value");
    if (depth == 1 && via_key == "text" && !payload && type != od::json_type::string) {
        // A block's text is a string in every API read here: a number or a
        // null would be rendered as no text, and the prompt counted short.
        throw FieldError("", fmt::format("expected a string, found {}", describe(type)));
    }
    switch (type) {
    case od::json_type::object:
        object(get(v.get_object(), "an object"), payload, depth, via_key, stats, parent);
        return;
    case od::json_type::array:
        array(get(v.get_array(), "an array"), payload, depth, stats, parent);
        return;
    case od::json_type::string: {
        const std::string_view token = trim_token(v.raw_json_token());
        const std::string_view s = string(v);
        // Most logs escape as the canonical form does: the token is then
        // copied as it is, not unescaped and escaped again.
        const bool as_is = is_canonical_token(token);
        if (!payload && via_key == "content" && depth > 0) {
            // A string `content` (tool_result) is the text block it stands for.
            m_out += "[{\"text\":";
            as_is ? void(m_out += token) : append_json_string(m_out, s);
            m_out += ",\"type\":\"text\"}]";
        } else {
            as_is ? void(m_out += token) : append_json_string(m_out, s);
        }
        const bool data_url = via_key == "url" && s.rfind("data:", 0) == 0;
        if (!payload && !is_uncounted_key(via_key) && !data_url) {
            stats.text_tokens += m_estimator->text(s);
        }
        if (parent != nullptr) {
            if (via_key == "type") {
                parent->type = s;
            } else if (via_key == "mimeType" || via_key == "mime_type") {
                parent->mime = s;
            } else if (via_key == "data") {
                parent->data = s;
                parent->has_data = true;
            }
        }
        if (depth == 1 && via_key == "text") {
            stats.has_text = true;
            stats.text_empty = s.empty();
        }
        return;
    }
    case od::json_type::number: {
        const std::string_view token = trim_token(v.raw_json_token());
        if (!is_json_number(token)) {
            throw FieldError("", fmt::format("invalid number \"{}\"", token));
        }
        m_out += token;
        return;
    }
    case od::json_type::boolean: {
        const bool b = get(v.get_bool(), "true or false");
        m_out += b ? "true" : "false";
        if (b && via_key == "enabled" && parent != nullptr) {
            parent->enabled_true = true;
        }
        if (b && via_key == "thought" && depth == 1) {
            stats.thought = true;
        }
        return;
    }
    case od::json_type::null:
        if (!get(v.is_null(), "null")) {
            throw FieldError("", "invalid literal (expected null)");
        }
        m_out += "null";
        return;
    }
}

void
JsonRenderer::object(od::object o, bool payload, int depth, std::string_view via_key,
                     RenderStats& stats, ObjectState* parent)
{
    if (depth >= k_max_depth) {
        throw FieldError("", fmt::format("nested deeper than {} levels", k_max_depth));
    }
    if (m_fields.size() <= static_cast<std::size_t>(depth)) {
        m_fields.resize(static_cast<std::size_t>(depth) + 1);
    }
    ObjectState state;
    const std::size_t object_begin = m_out.size();
    m_out.push_back('{');
    // m_fields[depth] is reused by siblings at this depth, so take it by index
    // after the children (which use deeper lists) are done.
    m_fields[static_cast<std::size_t>(depth)].clear();
    bool first = true;
    for (auto field : o) {
        const std::string_view key = get(field.unescaped_key(), "an object key");
        od::value member = get(field.value(), "a value");
        if (!payload && is_marker_key(key)) {
            auto cc = within(key, [&] {
                return key == "cache_control" ? parse_cache_control(member)
                                              : std::optional(parse_breakpoint_marker(member));
            });
            (depth == 0 ? stats.cache_control : stats.nested_cache_control) = cc;
            continue;
        }
        if (depth == 0 && std::find(m_skip_begin, m_skip_end, key) != m_skip_end) {
            continue;
        }
        if (depth == 0 && stats.tag.empty() && is_tag_key(key)) {
            stats.tag = std::string(key);
        }
        const std::size_t field_begin = m_out.size();
        if (!first) {
            m_out.push_back(',');
        }
        const std::size_t begin = m_out.size();
        append_json_string(m_out, key);
        m_out.push_back(':');
        const bool child_payload = payload || is_payload_key(key);
        const std::size_t value_begin = m_out.size();
        within(key, [&] { value(member, child_payload, depth + 1, key, stats, &state); });
        if (!child_payload && std::string_view(m_out).substr(value_begin) == "null") {
            // A typed field set to null is the field left out: clients echo
            // `"encrypted_content": null` where the response had none.
            m_out.resize(field_begin);
            continue;
        }
        first = false;
        if (child_payload && !payload) {
            // A payload is prompt text as a whole: count its JSON.
            stats.text_tokens += m_estimator->text(std::string_view(m_out).substr(value_begin));
        }
        m_fields[static_cast<std::size_t>(depth)].push_back(Field{key, begin, m_out.size()});
    }
    m_out.push_back('}');
    if (!payload) {
        sort_members(object_begin, m_fields[static_cast<std::size_t>(depth)]);
    }
    attribute_media(state, payload, via_key, stats, parent);
    if (depth == 0) {
        stats.type = std::string(state.type);
    }
}

// The members of the object rendered from object_begin, in key order: the
// canonical form that makes key order no part of the identity.
void
JsonRenderer::sort_members(std::size_t object_begin, std::vector<Field>& fields)
{
    const auto by_key = [](const Field& a, const Field& b) { return a.key < b.key; };
    if (fields.size() < 2 || std::is_sorted(fields.begin(), fields.end(), by_key)) {
        return;
    }
    std::sort(fields.begin(), fields.end(), by_key);
    m_scratch.clear();
    m_scratch.push_back('{');
    for (std::size_t i = 0; i < fields.size(); ++i) {
        if (i > 0) {
            m_scratch.push_back(',');
        }
        m_scratch.append(m_out, fields[i].begin, fields[i].end - fields[i].begin);
    }
    m_scratch.push_back('}');
    m_out.resize(object_begin);
    m_out += m_scratch;
}

// Attributes an object's base64 data and images now that its type is known.
void
JsonRenderer::attribute_media(ObjectState& state, bool payload, std::string_view via_key,
                              RenderStats& stats, ObjectState* parent) const
{
    if (state.has_data) {
        if (state.type == "base64" || is_inline_media_key(via_key)) {
            state.base64_bytes += state.data.size();
        } else if (!payload) {
            stats.text_tokens += m_estimator->text(state.data); // a plain-text source
        }
    }
    const bool inline_image = is_inline_media_key(via_key) && state.mime.rfind("image/", 0) == 0;
    if (state.type == "image" || state.type == "image_url" || state.type == "input_image" ||
        inline_image || (via_key == "image" && m_format == model::ApiFormat::bedrock_converse)) {
        ++stats.images; // images are estimated per image, not by their bytes
    } else if (state.type == "document" || is_inline_media_key(via_key)) {
        stats.document_base64_bytes += state.base64_bytes;
    } else if (parent != nullptr) {
        parent->base64_bytes += state.base64_bytes;
    }
    if (via_key == "citations" && state.enabled_true) {
        stats.citations_enabled = true;
    }
}

void
JsonRenderer::array(od::array a, bool payload, int depth, RenderStats& stats, ObjectState* parent)
{
    if (depth >= k_max_depth) {
        throw FieldError("", fmt::format("nested deeper than {} levels", k_max_depth));
    }
    m_out.push_back('[');
    std::size_t i = 0;
    for (auto element : a) {
        od::value v = get(element, "an array element");
        if (i > 0) {
            m_out.push_back(',');
        }
        within("", i, [&] { value(v, payload, depth + 1, "", stats, parent); });
        ++i;
    }
    m_out.push_back(']');
}

std::string_view
JsonRenderer::render_object(od::object o, RenderStats& stats,
                            std::initializer_list<std::string_view> skip)
{
    m_skip_begin = skip.begin();
    m_skip_end = skip.end();
    m_out.clear();
    stats = RenderStats{};
    object(o, false, 0, "", stats, nullptr);
    return m_out;
}

std::string
JsonRenderer::render_param(od::value v)
{
    m_out.clear();
    RenderStats ignored;
    m_skip_begin = m_skip_end = nullptr;
    value(v, false, 0, "", ignored, nullptr);
    return m_out;
}

std::string_view
JsonRenderer::render_text_string(std::string_view text, RenderStats& stats)
{
    stats = RenderStats{};
    m_out.assign("{\"text\":");
    append_json_string(m_out, text);
    m_out += ",\"type\":\"text\"}";
    stats.text_tokens = m_estimator->text(text);
    stats.type = "text";
    stats.has_text = true;
    stats.text_empty = text.empty();
    return m_out;
}

} // namespace cachewise::ingest
