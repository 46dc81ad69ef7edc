#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace cachewise::ingest {

// VCR cassettes: the YAML files that vcrpy (and pydantic-ai, OpenLLMetry,
// LangChain through it) record HTTP calls into. Each interaction that posted
// a model request (Messages, Chat Completions, Responses, generateContent,
// Bedrock invoke/converse) becomes one exchange record as JSON text:
// {"request": body, "response": body, "started_at": the response's Date
// header}, which the loader reads like a line of an exchange log. Bodies are
// taken from `parsed_body` (pydantic-ai), or from `body` / `body.string`,
// base64 (!!binary) and gzip'd or not. A Bedrock body names its model only
// in the URL: it is added, with the provider.
class CassetteReader {
public:
    using RecordCallback = std::function<void(std::string_view json, std::uint64_t line)>;
    // An interaction that is not a model call (count_tokens, a file upload).
    using SkipCallback = std::function<void()>;
    // An interaction that is broken: its line and why.
    using ErrorCallback = std::function<void(std::uint64_t line, const std::string& reason)>;

    // Returns an error for a text that is not a cassette at all (not YAML,
    // no `interactions` list): one message for the whole file.
    static std::string read(const std::string& text, const RecordCallback& on_record,
                            const SkipCallback& on_skip, const ErrorCallback& on_error);
};

// Bytes that are gzip'd (they start with 1f 8b) inflated, others as they are;
// an error message for a broken stream.
bool gunzip_if_compressed(std::string& bytes, std::string& error);

// "Tue, 15 Apr 2026 10:00:03 GMT" (an HTTP date) as RFC 3339, or "".
std::string http_date_to_rfc3339(std::string_view date);

} // namespace cachewise::ingest
