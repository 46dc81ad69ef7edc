#include "ingest/body_parser.hpp"

#include "ingest/field_error.hpp"
#include "ingest/ondemand.hpp"
#include "model/chain.hpp"
#include "model/thinking.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace cachewise::ingest {

BodyParser::BodyParser(const ruleset::Rules& rules, const model::TokenEstimator& estimator,
                       model::ApiFormat format, std::string_view conversation)
    : m_rules(&rules), m_estimator(&estimator), m_renderer(estimator, format), m_format(format),
      m_conversation_key(conversation)
{}

void
BodyParser::begin(model::Request& request)
{
    m_request = &request;
    for (auto& level : m_levels) {
        level.clear();
    }
    m_has_model = false;
    m_has_conversation = false;
    m_tool_choice = {};
    m_images = false;
    m_hidden_tokens = 0;
    m_provider_override.clear();
    grow_memo();
    reset_body();
}

// Between bodies only: a slot of the memo is held while its block renders.
void
BodyParser::grow_memo()
{
    if (m_memo.empty() || m_memo_fills < m_memo.size() / 2 || m_memo.size() >= k_memo_entries) {
        return;
    }
    // A memo, not a record: what it held is rendered again when met.
    m_memo.assign(k_memo_entries, MemoSlot{});
    m_memo_fills = 0;
}

const BodyParser::Rendered&
BodyParser::render(od::value block, std::initializer_list<std::string_view> skip)
{
    if (type_of(block) != od::json_type::object) {
        wrong_type("an object", type_of(block));
    }
    return render(get(block.get_object(), "an object"), skip);
}

BodyParser::MemoSlot&
BodyParser::memo_slot(const Hash128& key)
{
    if (m_memo.empty()) {
        m_memo.resize(k_memo_first);
    }
    return m_memo[key.low & (m_memo.size() - 1)];
}

const BodyParser::Rendered&
BodyParser::fill(MemoSlot& slot, const Hash128& key, std::string_view rendered,
                 const RenderStats& stats)
{
    Rendered& r = slot.value;
    r.stats = stats;
    r.content = hash_bytes(rendered);
    r.bytes = static_cast<std::uint32_t>(rendered.size());
    if (m_store != nullptr) {
        m_store->put(r.content, rendered);
    }
    slot.key = key;
    slot.used = true;
    ++m_memo_fills;
    return r;
}

const BodyParser::Rendered&
BodyParser::render(od::object object, std::initializer_list<std::string_view> skip)
{
    Hash128 key = hash_bytes(get(object.raw_json(), "an object"));
    for (const auto name : skip) {
        key.low ^= hash_bytes(name).low; // a different rendering of the same bytes
    }
    MemoSlot& slot = memo_slot(key);
    if (slot.used && slot.key == key) {
        return slot.value;
    }
    (void)get(object.reset(), "an object");
    slot.used = false; // until the rendering succeeds
    RenderStats stats;
    const std::string_view rendered = m_renderer.render_object(object, stats, skip);
    return fill(slot, key, rendered, stats);
}

void
BodyParser::alias_text(const Hash128& from, const Hash128& to)
{
    if (m_store == nullptr) {
        return;
    }
    m_store->alias(from, to);
}

const BodyParser::Rendered&
BodyParser::render_text(od::value& value)
{
    // Memoised like blocks, by the string's raw JSON: agent logs resend every
    // message's string content each turn, and unescaping it and estimating
    // its tokens is most of what reading it costs. The tag keeps a string's
    // key apart from an object's by design.
    const std::string_view raw = value.raw_json_token();
    Hash128 key = hash_bytes(raw);
    key.high ^= k_text_key_tag;
    MemoSlot& slot = memo_slot(key);
    if (slot.used && slot.key == key && !raw.empty() && raw.front() == '"') {
        return slot.value;
    }
    const std::string_view text = get_string(value);
    RenderStats stats;
    const std::string_view rendered = m_renderer.render_text_string(text, stats);
    return fill(slot, key, rendered, stats);
}

Segment
BodyParser::make_segment(const Rendered& rendered, SegmentPath path, Role role, bool message_start,
                         SegmentKind kind)
{
    const RenderStats& stats = rendered.stats;
    Segment s;
    s.path = path;
    s.role = role;
    s.kind = kind;
    s.message_start = message_start;
    s.content = rendered.content;
    s.bytes = rendered.bytes;
    double estimate = stats.text_tokens + static_cast<double>(stats.images) * m_estimator->image() +
                      m_estimator->document(stats.document_base64_bytes) +
                      m_estimator->block_overhead();
    if (message_start) {
        estimate += m_estimator->message_overhead();
    }
    if (kind == SegmentKind::tool) {
        estimate += m_estimator->tool_overhead();
    }
    s.estimate = static_cast<float>(estimate);
    // "Thinking blocks cannot be cached directly with cache_control" and
    // "Empty text blocks cannot be cached" (rule: where cache_control may go).
    s.cache_control_allowed = kind != SegmentKind::thinking &&
                              kind != SegmentKind::redacted_thinking &&
                              !(kind == SegmentKind::text && stats.text_empty);
    s.cache_control = stats.cache_control ? stats.cache_control : stats.nested_cache_control;
    return s;
}

void
BodyParser::put_first(model::Level level, const model::Segment& segment)
{
    // push_back and rotate, not insert at begin(): g++ 12 reads a possible
    // null dereference into the latter (-Wnull-dereference).
    auto& out = segments(level);
    out.push_back(segment);
    std::rotate(out.begin(), out.end() - 1, out.end());
}

bool
BodyParser::plain_system(od::value& value, const model::SegmentPath& path, model::Role role)
{
    const auto t = type_of(value);
    if (t == od::json_type::null) {
        return true;
    }
    if (t != od::json_type::string) {
        return false;
    }
    const Rendered& rendered = render_text(value);
    segments(model::Level::system)
        .push_back(make_segment(rendered, path, role, false, model::SegmentKind::text));
    return true;
}

void
BodyParser::append_tools(od::value value, model::PathRoot root)
{
    const auto t = type_of(value);
    if (t == od::json_type::null) {
        return;
    }
    // Anthropic's paths name the level; the others name their member.
    const model::PathPart part =
        root == model::PathRoot::by_level ? model::PathPart::content : model::PathPart::none;
    for_each_element(
        value, "an array of tool definitions", "a tool definition", [&](od::value& tool, int i) {
            if (type_of(tool) != od::json_type::object) {
                wrong_type("a tool definition object", type_of(tool));
            }
            const Rendered& rendered = render(tool);
            on_tool(rendered.stats);
            segments(model::Level::tools)
                .push_back(make_segment(rendered,
                                        SegmentPath{model::Level::tools, -1, i, false, root, part},
                                        Role::none, false, SegmentKind::tool));
        });
}

void
BodyParser::close_message(std::vector<model::Segment>& out, std::size_t first,
                          std::optional<model::Role> role, bool has_content)
{
    if (!role) {
        throw FieldError("role", "missing (expected \"user\" or \"assistant\")");
    }
    if (!has_content) {
        throw FieldError("content", "missing");
    }
    for (std::size_t k = first; k < out.size(); ++k) {
        out[k].role = *role;
    }
}

void
BodyParser::read_model(std::string_view field, od::value value)
{
    request().model = std::string(within(field, [&] { return get_string(value); }));
    m_has_model = true;
}

void
BodyParser::members(od::object body)
{
    for (auto field : body) {
        const std::string key(key_of(field)); // the key view does not outlive the member
        member(key, value_of(field));
    }
}

bool
BodyParser::member(std::string_view key, od::value value)
{
    if (key != m_conversation_key) {
        return body_member(key, value);
    }
    within(m_conversation_key, [&] { conversation(value); });
    m_has_conversation = true;
    return true;
}

void
BodyParser::add_param(std::string name, std::string value, bool present)
{
    m_request->params.push_back(
        model::Param{std::move(name), std::move(value), present, model::Level::messages});
}

BodyParser::Param
BodyParser::read_param(std::string_view field, od::value value)
{
    Param param{within(field, [&] { return m_renderer.render_param(value); })};
    param.present = param.value != "null";
    return param;
}

std::string
BodyParser::provider_of_model(std::string_view model)
{
    const std::string id = ruleset::normalize_model_id(model);
    if (id.rfind("deepseek", 0) == 0) {
        return "deepseek";
    }
    if (id.rfind("gemini", 0) == 0 || id.rfind("gemma", 0) == 0) {
        return "gemini";
    }
    if (id.rfind("claude", 0) == 0) {
        return "anthropic"; // an OpenAI-format gateway in front of Claude (OpenRouter, LiteLLM)
    }
    return "openai";
}

void
BodyParser::finish(std::string_view fallback_model)
{
    model::Request& r = *m_request;
    if (!m_model_override.empty()) {
        r.model = m_model_override;
    } else if (!m_has_model) {
        if (fallback_model.empty()) {
            throw FieldError("model", "missing");
        }
        r.model = std::string(fallback_model);
    }
    r.params.clear();
    if (!m_has_conversation && !conversation_optional()) {
        throw FieldError(std::string(m_conversation_key), "missing");
    }
    r.format = m_format;
    add_param("model", r.model, true);
    finish_body();
    if (!m_provider_override.empty()) {
        r.provider = m_provider_override;
    }
    const auto& order = m_rules->provider(r.provider).render_order;
    r.segments.clear();
    r.segments.reserve(m_levels[0].size() + m_levels[1].size() + m_levels[2].size());
    for (const auto level : order) {
        auto& part = segments(level);
        r.segments.insert(r.segments.end(), part.begin(), part.end());
    }
    // Tokens the API adds to the prompt (tool use, extended thinking) are in
    // the reported usage but in no segment: count them on the first.
    if (!r.segments.empty()) {
        r.segments.front().estimate += static_cast<float>(m_hidden_tokens);
    }
    finalize(r, *m_rules);
}

void
BodyParser::finalize(model::Request& request, const ruleset::Rules& rules)
{
    const auto& provider = rules.provider(request.provider);
    // Each parameter invalidates from the level the provider's table gives;
    // parameters the table does not name do not enter the chain.
    std::vector<model::Param> kept;
    for (auto& p : request.params) {
        if (const auto* rule = provider.invalidation_for(p.name)) {
            p.level = rule->level;
            kept.push_back(std::move(p));
        }
    }
    request.params = std::move(kept);

    const double multiplier = rules.tokens.multiplier_for(request.model);
    if (multiplier != 1.0) {
        for (auto& s : request.segments) {
            s.estimate = static_cast<float>(s.estimate * multiplier);
        }
    }
    // The tool_use/tool_result run rule of the lookback window ("On the
    // Claude API, a run of consecutive tool_use blocks counts as one
    // position"), where the provider has a lookback window at all.
    const bool runs_as_one = provider.has("tool_runs_count_as_one_position") &&
                             provider.fact("tool_runs_count_as_one_position").value != 0;
    model::assign_lookback_positions(request, runs_as_one);
    // The model's pattern is matched only for a request with thinking.
    const bool thinking =
        std::any_of(request.segments.begin(), request.segments.end(),
                    [](const model::Segment& s) { return s.kind == model::SegmentKind::thinking; });
    if (thinking && provider.strips_thinking(request.model)) {
        model::drop_stripped_thinking_estimates(request);
    }
    model::assign_tokens(request);
    model::compute_chain(request, provider.render_order);
}

void
BodyParser::continuation(std::string_view message_json)
{
    model::Request& r = request();
    if (r.segments.empty()) {
        return;
    }
    simdjson::padded_string padded(message_json);
    od::document doc;
    od::value value;
    if (iterate_twice_room(m_continuation_parser, padded).get(doc) != simdjson::SUCCESS ||
        doc.get_value().get(value) != simdjson::SUCCESS) {
        return;
    }
    std::vector<model::Segment> out;
    read_continuation(value, out);
    if (out.empty()) {
        return;
    }
    if (r.format == model::ApiFormat::openai_responses) {
        r.response_output = out;
    }
    Hash128 chain = r.segments.back().chain;
    double tokens = 0;
    for (const auto& s : out) {
        chain = model::chain_link(chain, s);
        tokens += s.estimate;
    }
    r.continuation = model::Continuation{chain, r.prompt_tokens() + std::llround(tokens)};
}

} // namespace cachewise::ingest
