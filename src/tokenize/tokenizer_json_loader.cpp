#include "tokenize/loaders.hpp"

#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>
#include <array>

namespace cachewise::tokenize {

namespace {

using simdjson::dom::element;

// GPT-2's bytes_to_unicode: tokenizer.json spells each byte of a token as
// one printable code point; this is the inverse (code point -> byte).
std::array<int, 324>
make_byte_decoder()
{
    std::array<int, 324> decoder{};
    decoder.fill(-1);
    int extra = 0;
    for (int b = 0; b < 256; ++b) {
        const bool printable = (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || b >= 174;
        const int cp = printable ? b : 256 + extra++;
        decoder[static_cast<std::size_t>(cp)] = b;
    }
    return decoder;
}

// The raw bytes of a vocabulary entry, or false when it uses a code point
// outside the byte alphabet (not a byte-level vocabulary).
bool
decode_byte_level(std::string_view token, std::string& out)
{
    static const auto decoder = make_byte_decoder();
    out.clear();
    const auto* p = reinterpret_cast<const unsigned char*>(token.data());
    const auto* end = p + token.size();
    while (p < end) {
        char32_t cp = *p;
        int len = 1;
        if (*p >= 0xC0 && *p < 0xE0 && p + 1 < end) {
            cp = ((*p & 0x1FU) << 6) | (p[1] & 0x3FU);
            len = 2;
        } else if (*p >= 0x80) {
            return false;
        }
        if (cp >= decoder.size() || decoder[cp] < 0) {
            return false;
        }
        out.push_back(static_cast<char>(decoder[cp]));
        p += len;
    }
    return true;
}

// The regular expressions of each supported family's pre_tokenizer, as
// tokenizer.json spells them (Split steps in order).
struct KnownPattern {
    PreTokenizer kind;
    std::array<std::string_view, 3> splits;
};
const std::array<KnownPattern, 3> k_known{{
    {PreTokenizer::llama3,
     {R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)",
      "", ""}},
    {PreTokenizer::qwen2,
     {R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)",
      "", ""}},
    {PreTokenizer::deepseek_v3,
     {R"(\p{N}{1,3})", "[\u4e00-\u9fa5\u3040-\u309f\u30a0-\u30ff]+",
      "[!\"#$%&'()*+,\\-./"
      ":;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+"
      "| ?[\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+"}},
}};

Expected<PreTokenizer>
recognise_pre_tokenizer(element pre, const std::string& label)
{
    std::vector<std::string_view> splits;
    simdjson::dom::array steps;
    std::string_view pre_type;
    if (pre.is_object() && pre["type"].get(pre_type) == simdjson::SUCCESS &&
        pre_type == "Sequence" && pre["pretokenizers"].get(steps) == simdjson::SUCCESS) {
        for (element step : steps) {
            std::string_view type;
            if (step["type"].get(type) != simdjson::SUCCESS) {
                continue;
            }
            std::string_view regex;
            if (type == "Split" && step["pattern"]["Regex"].get(regex) == simdjson::SUCCESS) {
                splits.push_back(regex);
            } else if (type != "ByteLevel") {
                return unexpected(
                    fmt::format("{}: pre_tokenizer step \"{}\" is not supported", label, type));
            }
        }
    }
    for (const auto& known : k_known) {
        std::size_t n = 0;
        while (n < known.splits.size() && !known.splits[n].empty()) {
            ++n;
        }
        if (n == splits.size() && std::equal(splits.begin(), splits.end(), known.splits.begin())) {
            return known.kind;
        }
    }
    return unexpected(fmt::format("{}: pre_tokenizer expressions not supported (cachewise scans "
                                  "those of Llama 3, Qwen 2/3 and DeepSeek V3 only)",
                                  label));
}

Expected<bool>
check_model(element model, element normalizer, const std::string& label, bool& nfc)
{
    std::string_view type;
    if (model["type"].get(type) != simdjson::SUCCESS || type != "BPE") {
        return unexpected(fmt::format("{}: model.type: expected \"BPE\"", label));
    }
    bool byte_fallback = false;
    if (model["byte_fallback"].get(byte_fallback) == simdjson::SUCCESS && byte_fallback) {
        return unexpected(fmt::format("{}: model.byte_fallback: SentencePiece-style models are "
                                      "not supported",
                                      label));
    }
    nfc = false;
    if (!normalizer.is_null()) {
        simdjson::dom::array list;
        const bool empty_sequence =
            normalizer["normalizers"].get(list) == simdjson::SUCCESS && list.size() == 0;
        std::string_view normalizer_type;
        nfc = normalizer["type"].get(normalizer_type) == simdjson::SUCCESS &&
              normalizer_type == "NFC";
        if (!empty_sequence && !nfc) {
            return unexpected(fmt::format("{}: normalizer {}: not supported (counts would "
                                          "differ from the model's)",
                                          label, simdjson::minify(normalizer)));
        }
    }
    bool ignore_merges = false;
    if (model["ignore_merges"].get(ignore_merges) != simdjson::SUCCESS) {
        ignore_merges = false; // absent: merges always apply
    }
    return ignore_merges;
}

Expected<bool>
add_vocabulary(element model, const TokenizerTraits& traits, Vocabulary& vocab,
               const std::string& label)
{
    simdjson::dom::object entries;
    if (model["vocab"].get(entries) != simdjson::SUCCESS) {
        return unexpected(fmt::format("{}: model.vocab: expected an object", label));
    }
    std::string bytes;
    for (auto field : entries) {
        std::uint64_t id = 0;
        if (field.value.get(id) != simdjson::SUCCESS || id > 0xFFFFFFF0ULL) {
            return unexpected(
                fmt::format("{}: model.vocab[\"{}\"]: expected a token id", label, field.key));
        }
        if (!decode_byte_level(field.key, bytes)) {
            // Added tokens may sit in the vocabulary spelt as text
            // (<｜begin▁of▁sentence｜>); they are special tokens, not bytes.
            const bool added =
                std::any_of(traits.special_tokens.begin(), traits.special_tokens.end(),
                            [&](const auto& t) { return t.first == field.key; });
            if (added) {
                continue;
            }
            return unexpected(
                fmt::format("{}: model.vocab[\"{}\"]: not a byte-level token", label, field.key));
        }
        if (!vocab.add_token(static_cast<TokenId>(id), bytes)) {
            return unexpected(fmt::format("{}: model.vocab[\"{}\"]: id {} or bytes repeat", label,
                                          field.key, id));
        }
    }
    return true;
}

Expected<bool>
add_merges(element model, Vocabulary& vocab, const std::string& label)
{
    simdjson::dom::array merges;
    if (model["merges"].get(merges) != simdjson::SUCCESS) {
        return unexpected(fmt::format("{}: model.merges: expected an array", label));
    }
    std::string left;
    std::string right;
    std::uint32_t rank = 0;
    for (element m : merges) {
        std::string_view a;
        std::string_view b;
        std::string_view joined;
        if (m.get(joined) == simdjson::SUCCESS) {
            const auto space = joined.find(' ');
            a = joined.substr(0, space);
            b = space == std::string_view::npos ? std::string_view{} : joined.substr(space + 1);
        } else if (m.at(0).get(a) != simdjson::SUCCESS || m.at(1).get(b) != simdjson::SUCCESS) {
            return unexpected(
                fmt::format("{}: model.merges[{}]: expected \"a b\" or [a, b]", label, rank));
        }
        const bool ok = decode_byte_level(a, left) && decode_byte_level(b, right);
        const auto l = ok ? vocab.find(left) : std::nullopt;
        const auto r = ok ? vocab.find(right) : std::nullopt;
        const auto merged = ok ? vocab.find(left + right) : std::nullopt;
        if (!l || !r || !merged) {
            return unexpected(fmt::format("{}: model.merges[{}]: \"{} {}\" names a token not in "
                                          "model.vocab",
                                          label, rank, a, b));
        }
        vocab.add_merge(*l, *r, rank++, *merged);
    }
    return true;
}

} // namespace

Expected<std::unique_ptr<Tokenizer>>
load_tokenizer_json(std::string_view text, const std::string& label, std::string name)
{
    simdjson::dom::parser parser;
    element root;
    if (const auto error = parser.parse(text.data(), text.size()).get(root)) {
        return unexpected(fmt::format("{}: not JSON ({})", label, simdjson::error_message(error)));
    }
    TokenizerTraits traits;
    traits.name = std::move(name);
    element pre_element;
    element model;
    if (root["pre_tokenizer"].get(pre_element) != simdjson::SUCCESS ||
        root["model"].get(model) != simdjson::SUCCESS || !model.is_object()) {
        return unexpected(fmt::format("{}: expected members pre_tokenizer and model", label));
    }
    const auto pre = recognise_pre_tokenizer(pre_element, label);
    if (!pre) {
        return unexpected(pre.error());
    }
    traits.pre_tokenizer = *pre;
    element normalizer;
    if (root["normalizer"].get(normalizer) != simdjson::SUCCESS) {
        return unexpected(fmt::format("{}: no normalizer member", label));
    }
    const auto ignore_merges = check_model(model, normalizer, label, traits.nfc);
    if (!ignore_merges) {
        return unexpected(ignore_merges.error());
    }
    traits.whole_piece_first = *ignore_merges;
    simdjson::dom::array added;
    if (root["added_tokens"].get(added) == simdjson::SUCCESS) {
        for (element t : added) {
            std::string_view content;
            std::uint64_t id = 0;
            if (t["content"].get(content) == simdjson::SUCCESS &&
                t["id"].get(id) == simdjson::SUCCESS) {
                traits.special_tokens.emplace_back(std::string(content), static_cast<TokenId>(id));
            }
        }
    }
    Vocabulary vocab;
    if (auto r = add_vocabulary(model, traits, vocab, label); !r) {
        return unexpected(r.error());
    }
    vocab.finish();
    if (auto r = add_merges(model, vocab, label); !r) {
        return unexpected(r.error());
    }
    vocab.finish();
    for (int b = 0; b < 256; ++b) {
        if (!vocab.byte_token(static_cast<unsigned char>(b))) {
            return unexpected(fmt::format("{}: no token for byte 0x{:02X}", label, b));
        }
    }
    return std::make_unique<Tokenizer>(std::move(traits), std::move(vocab));
}

} // namespace cachewise::tokenize
