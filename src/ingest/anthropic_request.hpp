#pragma once

#include "ingest/json_render.hpp"
#include "model/request.hpp"
#include "model/text_store.hpp"
#include "model/tokens.hpp"
#include "ruleset/rules.hpp"

#include <simdjson.h>

#include <string_view>
#include <unordered_map>
#include <vector>

namespace cachewise::ingest {

// Builds the request model from an Anthropic Messages API request body,
// one top-level member at a time, so that a record wrapping the body (or a
// bare body with extra members) can be read in a single forward pass.
class AnthropicRequestParser {
public:
    AnthropicRequestParser(const ruleset::Rules& rules, const model::TokenEstimator& estimator);

    // Starts a new request.
    void begin(model::Request& request);

    // Consumes one top-level member of the body. Returns false for members
    // that are not part of a request body (the caller may handle them).
    // Throws FieldError.
    bool member(std::string_view key, od::value value);

    // Appends the segments of one message's `content` (a string or an array of
    // blocks); used for request bodies and for Claude Code transcripts.
    // `message` is the message index; the first block gets message_start.
    void message_content(od::value content, model::Role role, int message,
                         std::vector<model::Segment>& out, bool& images_seen);

    // Validates required members, derives the parameters, assigns lookback
    // positions, tokens and the identity chain. Throws FieldError.
    void finish();

    // Applies the model's token multiplier, assigns lookback positions, tokens
    // and the identity chain; also used for requests assembled elsewhere
    // (Claude Code). Parameters must be set.
    static void finalize(model::Request& request, const ruleset::Rules& rules);

    // Where rendered segment bytes go when the caller wants them kept.
    void
    set_text_store(model::TextStore* store)
    {
        m_store = store;
    }

    // Every request gets this model (templates may leave it out).
    void
    set_model_override(std::string model)
    {
        m_model_override = std::move(model);
    }

private:
    void tools(od::value value);
    void system(od::value value);
    void messages(od::value value);
    // A block's rendering, remembered by the XXH3-128 of its raw JSON: agent
    // logs repeat the whole history in every request, so most blocks were
    // rendered before (measured: 170 -> 1,000 MB/s on exchange logs).
    struct Rendered {
        RenderStats stats;
        Hash128 content;
        std::uint32_t bytes = 0;
    };
    const Rendered& render(od::value block);
    const Rendered& remember(std::string_view rendered, const RenderStats& stats);
    model::Segment make_segment(const Rendered& rendered, model::SegmentPath path, model::Role role,
                                bool message_start);

    const ruleset::Rules* m_rules;
    const model::TokenEstimator* m_estimator;
    JsonRenderer m_renderer;
    model::TextStore* m_store = nullptr;
    std::string m_model_override;
    static constexpr std::size_t k_memo_entries = std::size_t{1} << 16;
    std::unordered_map<Hash128, Rendered, Hash128Hasher> m_memo;
    Rendered m_scratch; // renderings that are not memoised (string content)

    model::Request* m_request = nullptr;
    std::vector<model::Segment> m_tools;
    std::vector<model::Segment> m_system;
    std::vector<model::Segment> m_messages;
    // Members seen out of order are rendered once the model is known.
    bool m_has_model = false;
    bool m_has_messages = false;
    bool m_images = false;
    bool m_web_search = false;
    bool m_citations = false;
    std::string m_tool_choice;
    std::string m_thinking;
    std::string m_speed;
    std::string m_effort;
    bool m_has_tool_choice = false;
    bool m_has_thinking = false;
    bool m_has_speed = false;
    bool m_has_effort = false;
};

} // namespace cachewise::ingest
