#include "ingest/api_format.hpp"

#include "ruleset/rules.hpp"

#include <algorithm>
#include <array>

namespace cachewise::ingest {

namespace {

constexpr int k_decisive = 100;
// How many messages and tools a peek looks at: the first few decide.
constexpr int k_peek = 4;

template <std::size_t N>
bool
one_of(std::string_view key, const std::array<std::string_view, N>& names)
{
    return std::find(names.begin(), names.end(), key) != names.end();
}

constexpr std::array<std::string_view, 8> k_gemini_keys = {
    "contents",          "systemInstruction", "system_instruction", "generationConfig",
    "generation_config", "cachedContent",     "cached_content",     "safetySettings"};
constexpr std::array<std::string_view, 4> k_responses_keys = {
    "input", "instructions", "previous_response_id", "max_output_tokens"};
constexpr std::array<std::string_view, 6> k_bedrock_keys = {
    "toolConfig", "inferenceConfig", "additionalModelRequestFields",
    "modelId",    "promptVariables", "guardrailConfig"};
constexpr std::array<std::string_view, 8> k_anthropic_keys = {
    "system", "cache_control",     "thinking",      "stop_sequences",
    "top_k",  "anthropic_version", "output_config", "context_management"};
constexpr std::array<std::string_view, 16> k_openai_keys = {"max_completion_tokens",
                                                            "prompt_cache_key",
                                                            "prompt_cache_retention",
                                                            "prompt_cache_options",
                                                            "response_format",
                                                            "stream_options",
                                                            "reasoning_effort",
                                                            "n",
                                                            "frequency_penalty",
                                                            "presence_penalty",
                                                            "logprobs",
                                                            "seed",
                                                            "parallel_tool_calls",
                                                            "logit_bias",
                                                            "functions",
                                                            "modalities"};

// Whether a string value is one of `expected`. The value is read once: each
// get_string() copies the string into the parser's buffer again, and a few
// reads of one long string overflow it (found by fuzz_loader_auto).
bool
string_in(od::value& v, std::initializer_list<std::string_view> expected)
{
    std::string_view s;
    if (v.get_string().get(s) != simdjson::SUCCESS) {
        return false;
    }
    return std::find(expected.begin(), expected.end(), s) != expected.end();
}

} // namespace

bool
ApiFormatDetector::classify(std::string_view key)
{
    if (one_of(key, k_gemini_keys)) {
        m_gemini += k_decisive;
    } else if (one_of(key, k_responses_keys)) {
        m_responses += k_decisive;
    } else if (one_of(key, k_bedrock_keys)) {
        m_bedrock += k_decisive;
    } else if (one_of(key, k_anthropic_keys)) {
        ++m_anthropic;
    } else if (one_of(key, k_openai_keys)) {
        ++m_openai;
    } else {
        return false;
    }
    return true;
}

void
ApiFormatDetector::member(std::string_view key, od::value value)
{
    if (key == "model") {
        std::string_view s;
        if (value.get_string().get(s) == simdjson::SUCCESS) {
            m_model = std::string(s);
        }
    } else if (key == "messages") {
        peek_messages(value);
    } else if (key == "tools") {
        peek_tools(value);
    } else {
        m_top_system = m_top_system || key == "system";
        classify(key);
    }
}

void
ApiFormatDetector::key(std::string_view key)
{
    if (key == "\x01shape") {
        m_not_a_body = true;
        return;
    }
    m_top_system = m_top_system || key == "system";
    classify(key);
}

bool
ApiFormatDetector::contradicts(model::ApiFormat format) const
{
    using model::ApiFormat;
    if (m_not_a_body) {
        return true;
    }
    const bool gemini = m_gemini >= k_decisive;
    const bool responses = m_responses >= k_decisive;
    const bool bedrock = m_bedrock >= k_decisive;
    switch (format) {
    case ApiFormat::gemini:
        return responses || bedrock;
    case ApiFormat::openai_responses:
        return gemini || bedrock;
    case ApiFormat::bedrock_converse:
        return gemini || responses;
    case ApiFormat::anthropic:
        return gemini || responses || bedrock || (m_openai > m_anthropic && !m_top_system);
    case ApiFormat::openai_chat:
        return gemini || responses || bedrock || m_anthropic > m_openai || m_top_system;
    }
    return false;
}

void
ApiFormatDetector::peek_block(od::value value)
{
    od::object block;
    if (value.get_object().get(block) != simdjson::SUCCESS) {
        return;
    }
    bool typed = false;
    for (auto field : block) {
        std::string_view key;
        if (field.unescaped_key().get(key) != simdjson::SUCCESS) {
            return;
        }
        if (key == "type") {
            typed = true;
            od::value v;
            if (field.value().get(v) == simdjson::SUCCESS &&
                string_in(v, {"image_url", "input_audio", "refusal"})) {
                ++m_openai;
            }
        } else if (key == "cachePoint" || key == "toolUse" || key == "toolResult" ||
                   key == "reasoningContent") {
            m_bedrock += k_decisive;
        } else if (key == "prompt_cache_breakpoint") {
            ++m_openai;
        }
    }
    if (!typed) {
        m_untyped = true; // Converse blocks have no "type": {"text": ...}
    }
}

void
ApiFormatDetector::peek_messages(od::value value)
{
    od::array messages;
    if (value.get_array().get(messages) != simdjson::SUCCESS) {
        return;
    }
    int seen = 0;
    for (auto element : messages) {
        if (++seen > k_peek) {
            break;
        }
        od::object message;
        if (element.get_object().get(message) != simdjson::SUCCESS) {
            return;
        }
        for (auto field : message) {
            std::string_view key;
            if (field.unescaped_key().get(key) != simdjson::SUCCESS) {
                return;
            }
            od::value v;
            if (field.value().get(v) != simdjson::SUCCESS) {
                return;
            }
            if (key == "role") {
                if (string_in(v, {"system", "developer", "tool", "function"})) {
                    m_openai += 2;
                }
            } else if (key == "tool_calls" || key == "tool_call_id" || key == "name" ||
                       key == "reasoning_content") {
                m_openai += 2;
            } else if (key == "content") {
                od::array blocks;
                if (v.get_array().get(blocks) == simdjson::SUCCESS) {
                    int b = 0;
                    for (auto block : blocks) {
                        if (++b > k_peek) {
                            break;
                        }
                        od::value bv;
                        if (block.get(bv) != simdjson::SUCCESS) {
                            return;
                        }
                        peek_block(bv);
                    }
                }
            }
        }
    }
}

void
ApiFormatDetector::peek_tools(od::value value)
{
    od::array tools;
    if (value.get_array().get(tools) != simdjson::SUCCESS) {
        return;
    }
    for (auto element : tools) {
        od::object tool;
        if (element.get_object().get(tool) != simdjson::SUCCESS) {
            return;
        }
        for (auto field : tool) {
            std::string_view key;
            if (field.unescaped_key().get(key) != simdjson::SUCCESS) {
                return;
            }
            if (key == "function") {
                m_openai += 2;
            } else if (key == "input_schema") {
                m_anthropic += 2;
            } else if (key == "functionDeclarations" || key == "function_declarations" ||
                       key == "googleSearch" || key == "codeExecution") {
                m_gemini += k_decisive;
            } else if (key == "toolSpec") {
                m_bedrock += k_decisive;
            } else if (key == "parameters") {
                // Responses tools are flat: {"type": "function", "name", "parameters"}.
                ++m_openai;
            }
        }
        break; // the first tool tells
    }
}

model::ApiFormat
ApiFormatDetector::decide() const
{
    using model::ApiFormat;
    if (m_gemini >= k_decisive) {
        return ApiFormat::gemini;
    }
    if (m_responses >= k_decisive) {
        return ApiFormat::openai_responses;
    }
    if (m_bedrock >= k_decisive) {
        return ApiFormat::bedrock_converse;
    }
    if (m_top_system) {
        return ApiFormat::anthropic;
    }
    if (m_openai > m_anthropic) {
        return ApiFormat::openai_chat;
    }
    if (m_anthropic > m_openai) {
        return ApiFormat::anthropic;
    }
    // Untyped blocks are Converse's, or a broken Messages body (whose error
    // the Anthropic parser reports); a Bedrock model id tells them apart.
    if (m_untyped && m_openai == 0 &&
        (m_model.find("anthropic.") != std::string::npos ||
         m_model.find("amazon.") != std::string::npos ||
         m_model.find("meta.") != std::string::npos)) {
        return ApiFormat::bedrock_converse;
    }
    return format_of_model(m_model);
}

bool
ApiFormatDetector::contradicts(model::ApiFormat format, std::string_view model) const
{
    using model::ApiFormat;
    if (contradicts(format)) {
        return true;
    }
    // No member tells Messages from Chat Completions: a model of a family
    // served through Chat Completions does, as in the first look (an OpenAI
    // request after Anthropic ones). Not the reverse: gateways serve Claude
    // through Chat Completions too (LiteLLM, OpenRouter).
    return m_openai == m_anthropic && !m_untyped && format == ApiFormat::anthropic &&
           format_of_model(model) == ApiFormat::openai_chat;
}

model::ApiFormat
format_of_model(std::string_view model)
{
    // Nothing but model and messages: both APIs read it alike; a model of a
    // family served through Chat Completions says so, anything else keeps
    // Anthropic, cachewise's default.
    const std::string id = ruleset::normalize_model_id(model);
    for (const std::string_view family :
         {"gpt", "o1", "o3", "o4", "chatgpt", "codex", "deepseek", "gemini", "gemma", "qwen",
          "llama", "meta-llama", "mistral", "mixtral", "grok", "kimi", "glm"}) {
        if (id.rfind(family, 0) == 0) {
            return model::ApiFormat::openai_chat;
        }
    }
    return model::ApiFormat::anthropic;
}

} // namespace cachewise::ingest
