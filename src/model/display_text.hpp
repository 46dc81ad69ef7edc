#pragma once

#include "model/segment.hpp"

#include <string>
#include <string_view>

namespace cachewise::model {

// The text a reader knows a segment by, and the text its tokenizer counts:
// the `text` of a text block, the `thinking` of a thinking block, the text
// of a tool_result that holds only text; the canonical JSON otherwise (tool
// definitions, tool_use, images). Offsets in findings count characters of
// this text.
std::string display_text(std::string_view rendered, SegmentKind kind);

} // namespace cachewise::model
