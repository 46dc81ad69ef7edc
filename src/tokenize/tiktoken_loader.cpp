#include "tokenize/loaders.hpp"

#include <fmt/format.h>

#include <array>
#include <charconv>

namespace cachewise::tokenize {

namespace {

constexpr std::array<signed char, 256>
make_base64_table()
{
    std::array<signed char, 256> t{};
    t.fill(-1);
    const char* alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (int i = 0; i < 64; ++i) {
        t[static_cast<unsigned char>(alphabet[i])] = static_cast<signed char>(i);
    }
    return t;
}

constexpr auto k_base64 = make_base64_table();

// Standard base64 with padding; false on any other character.
bool
decode_base64(std::string_view in, std::string& out)
{
    out.clear();
    std::uint32_t acc = 0;
    int bits = 0;
    for (std::size_t i = 0; i < in.size(); ++i) {
        const char c = in[i];
        if (c == '=') {
            return i + 2 >= in.size() && in.size() % 4 == 0;
        }
        const int v = k_base64[static_cast<unsigned char>(c)];
        if (v < 0) {
            return false;
        }
        acc = (acc << 6) | static_cast<std::uint32_t>(v);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out.push_back(static_cast<char>((acc >> bits) & 0xFFU));
        }
    }
    return in.size() % 4 == 0;
}

} // namespace

Expected<std::unique_ptr<Tokenizer>>
load_tiktoken(std::string_view text, const std::string& label, TokenizerTraits traits)
{
    Vocabulary vocab;
    std::string bytes;
    std::size_t line_number = 0;
    std::size_t pos = 0;
    TokenId expected_rank = 0;
    while (pos < text.size()) {
        std::size_t eol = text.find('\n', pos);
        if (eol == std::string_view::npos) {
            eol = text.size();
        }
        const std::string_view line = text.substr(pos, eol - pos);
        pos = eol + 1;
        ++line_number;
        if (line.empty()) {
            continue;
        }
        const auto space = line.find(' ');
        TokenId rank = 0;
        const auto rank_text =
            space == std::string_view::npos ? std::string_view{} : line.substr(space + 1);
        const auto [end, ec] =
            std::from_chars(rank_text.data(), rank_text.data() + rank_text.size(), rank);
        if (space == std::string_view::npos || ec != std::errc{} ||
            end != rank_text.data() + rank_text.size()) {
            return unexpected(
                fmt::format("{}:{}: expected \"<base64 token> <rank>\"", label, line_number));
        }
        if (!decode_base64(line.substr(0, space), bytes) || bytes.empty()) {
            return unexpected(fmt::format("{}:{}: token is not base64", label, line_number));
        }
        if (rank != expected_rank) {
            return unexpected(fmt::format("{}:{}: rank {} out of order (expected {})", label,
                                          line_number, rank, expected_rank));
        }
        if (!vocab.add_token(rank, bytes)) {
            return unexpected(fmt::format("{}:{}: token of rank {} repeats an earlier one", label,
                                          line_number, rank));
        }
        ++expected_rank;
    }
    vocab.finish();
    for (int b = 0; b < 256; ++b) {
        if (!vocab.byte_token(static_cast<unsigned char>(b))) {
            return unexpected(fmt::format("{}: no token for byte 0x{:02X}; not a byte-level BPE "
                                          "rank file",
                                          label, b));
        }
    }
    traits.whole_piece_first = true;
    return std::make_unique<Tokenizer>(std::move(traits), std::move(vocab));
}

} // namespace cachewise::tokenize
