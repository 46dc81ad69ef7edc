#pragma once

#include <string>
#include <string_view>

namespace cachewise::ingest {

// What a text that is not JSON looks like, from its first non-blank line:
// "looks like YAML", "looks like HTML or XML", "looks like Markdown",
// "looks like plain text" (an empty text: "the file is empty").
std::string describe_non_json(std::string_view first_line);

// True when a first line is binary data (gzip, zstd, xz, bzip2, zip, PNG,
// JPEG, PDF by their opening bytes; control bytes, ill-formed
// UTF-8 past a multi-byte character that log rotation may have cut): no JSON
// record follows in such a file, whatever bytes happen to open a later line.
bool looks_binary(std::string_view first_line);

// Why a file whose first line is not a JSON object or array cannot be read:
// "not JSON: looks like YAML", or "a JSON null, not a record (...)" when the
// line is valid JSON of another type.
std::string non_json_reason(std::string_view first_line);

// What a file given to `lint` or `suggest` as a template is, when it is not
// one request body: "an exchange log: use analyze or audit", "a Claude Code
// transcript: ...", "an agent trajectory: ...". Empty for a request body
// (or a template that does not parse: the request reader says why).
std::string describe_non_template(std::string_view text, std::string_view path);

// The error for a file named as a template that describe_non_template()
// says is `kind`: "PATH: not a request body or template: KIND".
std::string not_a_template(std::string_view path, std::string_view kind);

} // namespace cachewise::ingest
