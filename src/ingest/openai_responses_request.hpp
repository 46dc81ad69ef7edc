#pragma once

#include "ingest/body_parser.hpp"

#include <string>

namespace cachewise::ingest {

// Builds the request model from an OpenAI Responses API body.
//
// Segments: `instructions` (the system level), each tool, each content part of
// each input message (a string input is one user text block), and each other
// input item (function_call, function_call_output, reasoning, ...) as a
// whole, without its server-side "id" and "status". A request that continues
// a stored response (previous_response_id) starts with an unlogged segment
// standing for the stored conversation; its tokens are inferred from usage,
// unless the log holds that response (ingest::Delivery puts its
// conversation in the stand-in's place).
class OpenAIResponsesParser : public BodyParser {
public:
    OpenAIResponsesParser(const ruleset::Rules& rules, const model::TokenEstimator& estimator);

private:
    void reset_body() override;
    void finish_body() override;
    void read_continuation(od::value output, std::vector<model::Segment>& out) override;
    bool body_member(std::string_view key, od::value value) override;
    void conversation(od::value value) override;
    // Appends the segments of one input item to `out`, or to the request's
    // levels when null.
    void item(od::value value, int index, bool& system_run, std::vector<model::Segment>* into);

    int m_item_count = 0;
    std::string m_previous_response;
    Param m_text_format;
    Param m_reasoning;
};

// The content of the stand-in for the stored conversation of response `id`.
Hash128 stored_response_key(std::string_view id);

} // namespace cachewise::ingest
