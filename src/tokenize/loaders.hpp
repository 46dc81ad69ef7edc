#pragma once

#include "tokenize/tokenizer.hpp"
#include "util/expected.hpp"

#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace cachewise::tokenize {

// A tiktoken rank file (`<base64 token> <rank>` per line, ranks from 0),
// as OpenAI publishes o200k_base.tiktoken and cl100k_base.tiktoken. `label`
// names the file in errors; the traits give the pre-tokenizer and the
// special tokens, which the file does not hold. `parsed(n)`, when given, is
// told now and then that the first n bytes of `text` are read and needed no
// more (a mapped file gives their pages back).
Expected<std::unique_ptr<Tokenizer>>
load_tiktoken(std::string_view text, const std::string& label, TokenizerTraits traits,
              const std::function<void(std::size_t)>& parsed = {});

// A Hugging Face tokenizer.json with a byte-level BPE model (Llama 3,
// Qwen 2/3, DeepSeek V3). The pre-tokenizer is recognised from its regular
// expressions; one that no scanner implements is an error, as is a
// normalizer that changes text (Qwen's NFC), since counts would silently
// differ. Added tokens become special tokens.
Expected<std::unique_ptr<Tokenizer>>
load_tokenizer_json(std::string_view text, const std::string& label, std::string name);

} // namespace cachewise::tokenize
