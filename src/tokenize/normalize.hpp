#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace cachewise::tokenize {

// Unicode NFC of well-formed UTF-8, as Qwen's tokenizer.json normalizer
// applies before pre-tokenisation (ICU's Normalizer2). Returns nothing when
// the text is already NFC, which a byte scan settles for text without code
// points from U+0300 on (most logs).
std::optional<std::string> to_nfc(std::string_view utf8);

} // namespace cachewise::tokenize
