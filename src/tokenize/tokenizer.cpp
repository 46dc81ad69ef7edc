#include "tokenize/tokenizer.hpp"

#include "tokenize/normalize.hpp"
#include "tokenize/utf8.hpp"

namespace cachewise::tokenize {

Tokenizer::Tokenizer(TokenizerTraits traits, Vocabulary vocab)
    : m_traits(std::move(traits)), m_vocab(std::move(vocab))
{}

void
Tokenizer::encode_piece(std::string_view piece, std::vector<TokenId>& out) const
{
    if (m_traits.whole_piece_first) {
        if (const auto id = m_vocab.find(piece)) {
            out.push_back(*id);
            return;
        }
    }
    if (const auto hit = m_cache.find(piece)) {
        out.insert(out.end(), hit->begin(), hit->end());
        return;
    }
    const std::size_t start = out.size();
    m_merger.merge(m_vocab, piece, out);
    m_cache.add(piece, std::span<const TokenId>(out.data() + start, out.size() - start));
}

void
Tokenizer::encode_valid(std::string_view text, std::vector<TokenId>& out) const
{
    m_pieces.clear();
    pre_tokenize(m_traits.pre_tokenizer, text, m_pieces);
    for (const auto piece : m_pieces) {
        encode_piece(piece, out);
    }
}

void
Tokenizer::encode(std::string_view text, std::vector<TokenId>& out) const
{
    std::string repaired;
    if (!is_valid_utf8(text)) {
        repaired = repair_utf8(text);
        text = repaired;
    }
    if (m_traits.nfc) {
        if (auto normal = to_nfc(text)) {
            encode_valid(*normal, out);
            return;
        }
    }
    encode_valid(text, out);
}

std::size_t
Tokenizer::count(std::string_view text) const
{
    std::vector<TokenId> ids;
    ids.reserve(text.size() / 3 + 1);
    encode(text, ids);
    return ids.size();
}

std::string_view
Tokenizer::token_bytes(TokenId id) const
{
    for (const auto& [text, special_id] : m_traits.special_tokens) {
        if (special_id == id) {
            return text;
        }
    }
    return m_vocab.bytes_of(id);
}

std::optional<TokenId>
Tokenizer::special(std::string_view text) const
{
    for (const auto& [t, id] : m_traits.special_tokens) {
        if (t == text) {
            return id;
        }
    }
    return std::nullopt;
}

} // namespace cachewise::tokenize
