#pragma once

#include "advise/prefix_counter.hpp"
#include "model/request.hpp"

#include <string>

namespace cachewise::live {

// The request body a request was read from, as JSON: the whole file for a
// request body or template, the record's "request" member (or the bare body)
// at the request's line of a JSONL log. Throws Error when the file cannot be
// read or the line is not JSON.
std::string body_json_of(const model::Request& request);

// Pins a request's token counts to exact counts at the boundaries its cache
// decisions turn on: the end of the tools, the end of the system prompt, every
// breakpoint, and the whole prompt. Between two boundaries the estimates are
// scaled to fit (TokenSource::calibrated). False, and nothing changed, when
// the provider has no counting endpoint for the request's format.
bool pin_exact_tokens(model::Request& request, const std::string& body_json,
                      advise::PrefixCounter& counter);

} // namespace cachewise::live
