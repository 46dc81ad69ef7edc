#include "tokenize/tokenizer.hpp"

#include "tokenize/normalize.hpp"
#include "tokenize/utf8.hpp"

namespace cachewise::tokenize {

Tokenizer::Tokenizer(TokenizerTraits traits, Vocabulary vocab)
    : Tokenizer(std::move(traits), std::make_shared<const Vocabulary>(std::move(vocab)))
{}

Tokenizer::Tokenizer(TokenizerTraits traits, std::shared_ptr<const Vocabulary> vocab)
    : m_traits(std::move(traits)), m_vocab(std::move(vocab))
{}

std::unique_ptr<Tokenizer>
Tokenizer::clone() const
{
    return std::unique_ptr<Tokenizer>(new Tokenizer(m_traits, m_vocab));
}

std::span<const TokenId>
Tokenizer::piece_tokens(std::string_view piece, const PieceCache::Key& key) const
{
    if (const auto hit = m_cache.find(piece, key)) {
        return *hit;
    }
    m_scratch.clear();
    const auto whole = m_traits.whole_piece_first ? m_vocab->find(piece) : std::nullopt;
    if (whole) {
        m_scratch.push_back(*whole);
    } else {
        m_merger.merge(*m_vocab, piece, m_scratch);
    }
    m_cache.add(piece, key, m_scratch);
    return m_scratch;
}

namespace {

// `text` as the tokenizer reads it: ill-formed UTF-8 repaired, then put in
// NFC when the family asks; `storage` holds the text when it changed.
std::string_view
prepared(std::string_view text, bool nfc, std::string& storage)
{
    if (!is_valid_utf8(text)) {
        storage = repair_utf8(text);
        text = storage;
    }
    if (nfc) {
        if (auto normal = to_nfc(text)) {
            storage = std::move(*normal);
            text = storage;
        }
    }
    return text;
}

} // namespace

template <typename Fn>
void
Tokenizer::for_each_part(std::string_view text, Fn fn) const
{
    std::string storage;
    text = prepared(text, m_traits.nfc, storage);
    // A few hundred pieces at a time, so that they and their keys stay in
    // the first-level cache beside the piece cache's slots.
    constexpr std::size_t k_part = 256;
    const char* end = text.data() + text.size();
    for (std::size_t from = 0; from < text.size();) {
        m_pieces.clear();
        from = pre_tokenize_part(m_traits.pre_tokenizer, text, from, k_part, m_pieces);
        fn(end);
    }
}

// Most pieces are in the piece cache, and between two texts the loader has
// pushed its slots out to the outer caches: the part's pieces are keyed
// first so that each slot is fetched a few pieces ahead of its use.
constexpr std::size_t k_ahead = 8;

void
Tokenizer::encode(std::string_view text, std::vector<TokenId>& out) const
{
    for_each_part(text, [&](const char* end) {
        m_keys.resize(m_pieces.size());
        for (std::size_t i = 0; i < m_pieces.size(); ++i) {
            m_keys[i] = PieceCache::key(m_pieces[i], end);
        }
        for (std::size_t i = 0; i < m_pieces.size(); ++i) {
            if (i + k_ahead < m_pieces.size()) {
                m_cache.prefetch(m_keys[i + k_ahead]);
            }
            const auto tokens = piece_tokens(m_pieces[i], m_keys[i]);
            out.insert(out.end(), tokens.begin(), tokens.end());
        }
    });
}

// The count of one piece of the text that ends at `end`: short pieces are
// looked up in m_short by their bytes alone, the others in the piece cache.
std::size_t
Tokenizer::piece_count(std::string_view piece, const char* end) const
{
    const auto word = ShortPieceCounts::word_of(piece, end);
    if (word) {
        if (const auto hit = m_short.find(*word, piece.size())) {
            return *hit;
        }
    }
    const std::size_t tokens = piece_tokens(piece, PieceCache::key(piece, end)).size();
    if (word) {
        m_short.put(*word, piece.size(), tokens);
    }
    return tokens;
}

// Each piece is counted as soon as it is found, without a list of pieces
// between the two steps; deepseek_v3, which splits a text in passes, goes
// part by part.
std::size_t
Tokenizer::count(std::string_view text) const
{
    std::size_t n = 0;
    if (m_traits.pre_tokenizer == PreTokenizer::deepseek_v3) {
        for_each_part(text, [&](const char* end) {
            for (const auto piece : m_pieces) {
                n += piece_count(piece, end);
            }
        });
        return n;
    }
    std::string storage;
    text = prepared(text, m_traits.nfc, storage);
    const char* end = text.data() + text.size();
    for (std::size_t i = 0; i < text.size();) {
        const std::size_t e = piece_end(m_traits.pre_tokenizer, text, i);
        n += piece_count(text.substr(i, e - i), end);
        i = e;
    }
    return n;
}

std::string_view
Tokenizer::token_bytes(TokenId id) const
{
    for (const auto& [text, special_id] : m_traits.special_tokens) {
        if (special_id == id) {
            return text;
        }
    }
    return m_vocab->bytes_of(id);
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
