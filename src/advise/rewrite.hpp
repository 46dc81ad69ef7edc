#pragma once

#include "model/breakpoints.hpp"
#include "model/request.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cachewise::advise {

// Rewrites the JSON text of one request so that its cache_control markers are
// exactly `wanted`, touching nothing else: key order, numbers, whitespace and
// string bytes stay as they were. A marker is appended to a block object as
// ,"cache_control":{...}; a string `content` or `system` that needs one
// becomes the one-block array it stands for, its string bytes kept; markers
// no longer wanted, and a top-level automatic one, are cut out with their
// comma. `root` is the request's path in the document ("" for a bare body,
// "request" inside an exchange record). Nothing when the text does not match
// the request.
std::optional<std::string> rewrite_request(std::string_view text, const std::string& root,
                                           const model::Request& request,
                                           const std::vector<model::Breakpoint>& wanted);

// A unified diff (3 lines of context) of two texts, line by line.
std::string unified_diff(std::string_view before, std::string_view after,
                         std::string_view name_before, std::string_view name_after);

} // namespace cachewise::advise
