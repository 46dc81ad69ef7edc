#include "tokenize/loaders.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>

namespace cachewise::tokenize {

namespace {

constexpr std::array<std::int16_t, 256>
make_base64_table()
{
    std::array<std::int16_t, 256> t{};
    t.fill(-1);
    const char* alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (int i = 0; i < 64; ++i) {
        t[static_cast<unsigned char>(alphabet[i])] = static_cast<std::int16_t>(i);
    }
    return t;
}

constexpr auto k_base64 = make_base64_table();

// Standard base64 with padding, four characters to three bytes at a time
// (the load reads 200k of them); false on any other character.
bool
decode_base64(std::string_view in, std::string& out)
{
    out.clear();
    if (in.size() % 4 != 0) {
        return false;
    }
    for (std::size_t i = 0; i < in.size(); i += 4) {
        const int a = k_base64[static_cast<unsigned char>(in[i])];
        const int b = k_base64[static_cast<unsigned char>(in[i + 1])];
        const int c = k_base64[static_cast<unsigned char>(in[i + 2])];
        const int d = k_base64[static_cast<unsigned char>(in[i + 3])];
        if ((a | b | c | d) >= 0) {
            const auto v = (static_cast<std::uint32_t>(a) << 18) |
                           (static_cast<std::uint32_t>(b) << 12) |
                           (static_cast<std::uint32_t>(c) << 6) | static_cast<std::uint32_t>(d);
            const std::array<char, 3> bytes{static_cast<char>(v >> 16), static_cast<char>(v >> 8),
                                            static_cast<char>(v)};
            out.append(bytes.data(), bytes.size());
            continue;
        }
        // Padding: "xx==" or "xxx=", in the last group only.
        const bool last = i + 4 == in.size();
        if (!last || a < 0 || b < 0 || in[i + 3] != '=' || (c < 0 && in[i + 2] != '=')) {
            return false;
        }
        const auto v = (static_cast<std::uint32_t>(a) << 18) |
                       (static_cast<std::uint32_t>(b) << 12) |
                       (c < 0 ? 0U : static_cast<std::uint32_t>(c) << 6);
        out.push_back(static_cast<char>(v >> 16));
        if (c >= 0) {
            out.push_back(static_cast<char>(v >> 8));
        }
    }
    return true;
}

} // namespace

Expected<std::unique_ptr<Tokenizer>>
load_tiktoken(std::string_view text, const std::string& label, TokenizerTraits traits,
              const std::function<void(std::size_t)>& parsed)
{
    constexpr std::size_t k_parsed_step = std::size_t{256} << 10;
    std::size_t told = 0;
    Vocabulary vocab;
    // A line per token; base64 is four characters to three bytes.
    vocab.reserve(static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) + 1,
                  text.size() * 3 / 4);
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
        if (parsed && pos - told >= k_parsed_step) {
            told = pos;
            parsed(told);
        }
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
