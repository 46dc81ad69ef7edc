#pragma once

#include "ingest/body_parser.hpp"

#include <string>

namespace cachewise::ingest {

// Builds the request model from a Gemini generateContent body (REST
// camelCase or the Python SDK's snake_case), or from a cachedContents.create
// body, which makes an explicit cache.
//
// Segments: each part of systemInstruction (the system level); each function
// declaration, and each other tool; each part of each content. A request that
// reads an explicit cache (cachedContent) starts with an unlogged segment
// standing for the cached content; its tokens are inferred from usage.
class GeminiRequestParser : public BodyParser {
public:
    GeminiRequestParser(const ruleset::Rules& rules, const model::TokenEstimator& estimator);

private:
    void reset_body() override;
    void finish_body() override;
    void system_instruction(od::value value);
    void tools(od::value value);
    bool body_member(std::string_view key, od::value value) override;
    void conversation(od::value value) override;
    // A body that creates an explicit cache need not have contents.
    [[nodiscard]] bool conversation_optional() const override { return m_cache_create; }
    void parts(od::value value, model::Level level, model::PathRoot root, int index,
               model::Role role);

    bool m_cache_create = false;
    std::optional<double> m_ttl_seconds;
    std::optional<Timestamp> m_expire_time;
};

} // namespace cachewise::ingest
