#pragma once

#include "ingest/json_render.hpp"
#include "model/request.hpp"
#include "model/text_store.hpp"
#include "model/tokens.hpp"
#include "ruleset/rules.hpp"

#include <simdjson.h>

#include <array>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace cachewise::ingest {

// The model's vocabulary, which every reader speaks.
using model::Level;
using model::PathPart;
using model::PathRoot;
using model::Role;
using model::Segment;
using model::SegmentKind;
using model::SegmentPath;

// What the parsers of every API format share: memoised block rendering,
// segment construction, the provider's render order and the identity chain.
// A body is consumed one top-level member at a time, so that a record that
// wraps it (or a bare body with extra members) is read in one forward pass.
class BodyParser {
public:
    // `conversation` names the member every body must have (messages,
    // contents, input).
    BodyParser(const ruleset::Rules& rules, const model::TokenEstimator& estimator,
               model::ApiFormat format, std::string_view conversation);
    virtual ~BodyParser() = default;
    BodyParser(const BodyParser&) = delete;
    BodyParser& operator=(const BodyParser&) = delete;

    // Starts a new request.
    void begin(model::Request& request);

    // Consumes one top-level member of the body: the conversation here, the
    // rest in body_member(). Returns false for members that are not part of
    // a request body (the caller may handle them). Throws FieldError.
    bool member(std::string_view key, od::value value);

    // Consumes every member of a body object (member() for each).
    void members(od::object body);

    // Validates required members, picks the provider, orders the segments in
    // its render order, derives the parameters and assigns lookback
    // positions, tokens and the identity chain. `fallback_model` (the
    // response's) is used when the body names none. Throws FieldError.
    void finish(std::string_view fallback_model = {});

    // Applies the model's token multiplier, assigns lookback positions, tokens
    // and the identity chain; also used for requests assembled elsewhere
    // (Claude Code). Parameters and the provider must be set.
    static void finalize(model::Request& request, const ruleset::Rules& rules);

    // Renders a response's message (raw JSON, ResponseInfo::message_json) as
    // the next turn would send it back and extends the finished request's
    // chain by it (model::Continuation). JSON that does not parse is ignored;
    // content that does not fit the format throws FieldError.
    void continuation(std::string_view message_json);

    void set_text_store(model::TextStore* store) { m_store = store; }
    // Every request gets this model (templates may leave it out).
    void set_model_override(std::string model) { m_model_override = std::move(model); }
    // The record names its provider ("provider": "deepseek").
    void set_provider_override(std::string provider) { m_provider_override = std::move(provider); }

protected:
    // A block's rendering, remembered by the XXH3-128 of its raw JSON: agent
    // logs repeat the whole history in every request, so most blocks were
    // rendered before (measured: 170 -> 1,000 MB/s on exchange logs).
    struct Rendered {
        RenderStats stats;
        Hash128 content;
        std::uint32_t bytes = 0;
    };
    // The result is valid until the next render: use it at once.
    const Rendered& render(od::value block, std::initializer_list<std::string_view> skip = {});
    const Rendered& render(od::object object, std::initializer_list<std::string_view> skip = {});
    // Files the text kept under `from` also under `to` (a block whose identity
    // was extended, e.g. by a message header), so counts can find it.
    void alias_text(const Hash128& from, const Hash128& to);
    // A JSON string (`value`) as the text block the API turns it into.
    const Rendered& render_text(od::value& value);
    model::Segment make_segment(const Rendered& rendered, model::SegmentPath path, model::Role role,
                                bool message_start, model::SegmentKind kind);

    // Puts `segment` before the segments of `level` (content the body only
    // refers to, such as an explicit cache or a stored response).
    void put_first(model::Level level, const model::Segment& segment);
    // A system prompt given as null (none) or as a plain string (one text
    // segment at `path`): true when it was one of those, else the caller
    // reads it.
    bool plain_system(od::value& value, const model::SegmentPath& path, model::Role role);
    // Appends one tool segment per element of a `tools` array (null: none),
    // with paths under `root` (tools[i], toolConfig.tools[i]).
    void append_tools(od::value value, model::PathRoot root);
    // Ends a message whose blocks (out[first..]) were read before its role was
    // known, as keys come in any order: both members must have been there,
    // and the blocks take the role. Throws FieldError.
    static void close_message(std::vector<model::Segment>& out, std::size_t first,
                              std::optional<model::Role> role, bool has_content);
    // Sees each tool's rendering (Anthropic: server tools toggle caches).
    virtual void on_tool(const RenderStats& /*stats*/) {}

    // Appends the segments a response message (parsed message_json) becomes
    // in the next request. Formats whose responses do not have the request's
    // shape leave it empty, and get no continuation.
    virtual void read_continuation(od::value /*message*/, std::vector<model::Segment>& /*out*/) {}

    // The format's members other than the conversation; as member().
    virtual bool body_member(std::string_view key, od::value value) = 0;
    // Reads the conversation member's value.
    virtual void conversation(od::value value) = 0;
    // A body may leave the conversation out (Gemini: one that creates a cache).
    [[nodiscard]] virtual bool conversation_optional() const { return false; }
    // Called by begin(): forgets the previous body.
    virtual void reset_body() = 0;
    // Called by finish(), once the conversation is known to be there, the
    // format set and the model parameter added: checks the format's other
    // required members, sets the provider (unless overridden) and the
    // remaining parameters.
    virtual void finish_body() = 0;
    void add_param(std::string name, std::string value, bool present);
    // A parameter as the body sent it, rendered as JSON; an absent one is
    // not part of the request's parameters.
    struct Param {
        std::string value;
        bool present = false;
    };
    void add_param(std::string name, const Param& param)
    {
        add_param(std::move(name), param.value, param.present);
    }
    // Member `field` rendered as a parameter; null counts as absent.
    Param read_param(std::string_view field, od::value value);
    // The provider an OpenAI-format body goes to, from its model name.
    [[nodiscard]] static std::string provider_of_model(std::string_view model);

    std::vector<model::Segment>& segments(model::Level level)
    {
        return m_levels[static_cast<std::size_t>(level)];
    }
    [[nodiscard]] model::Request& request() { return *m_request; }
    // The body's model (`field` names it in errors).
    void read_model(std::string_view field, od::value value);

    const ruleset::Rules* m_rules;
    const model::TokenEstimator* m_estimator;
    JsonRenderer m_renderer;
    bool m_has_model = false;
    // What every format has: how the model may pick tools, and whether any
    // image was sent (begin() forgets both).
    Param m_tool_choice;
    bool m_images = false;
    double m_hidden_tokens = 0; // prompt the API adds (tool use, thinking): on the first segment

private:
    model::ApiFormat m_format;
    std::string_view m_conversation_key;
    bool m_has_conversation = false;
    model::TextStore* m_store = nullptr;
    std::string m_model_override;
    std::string m_provider_override;
    // Direct-mapped by the key's low bits, allocated at the first block: a
    // lookup is one probe, a miss renders into the slot it evicts (a block
    // rendered again gives the same bytes, so only speed depends on it).
    struct MemoSlot {
        Hash128 key;
        bool used = false;
        Rendered value;
    };
    // The memo starts small and takes its full size between bodies once half
    // of it was filled: zeroing all 32,768 slots (3 MB) for a template of a
    // few blocks took a third of `lint`'s run time on a VM where each page
    // fault is dear.
    static constexpr std::size_t k_memo_first = std::size_t{1} << 9;
    static constexpr std::size_t k_memo_entries = std::size_t{1} << 15;
    void grow_memo();
    std::size_t m_memo_fills = 0; // renderings kept since the memo was sized
    static constexpr std::uint64_t k_text_key_tag = 0x7465787420737472; // "text str"
    MemoSlot& memo_slot(const Hash128& key);
    const Rendered& fill(MemoSlot& slot, const Hash128& key, std::string_view rendered,
                         const RenderStats& stats);
    std::vector<MemoSlot> m_memo;
    model::Request* m_request = nullptr;
    std::array<std::vector<model::Segment>, 3> m_levels;
    od::parser m_continuation_parser;
};

} // namespace cachewise::ingest
