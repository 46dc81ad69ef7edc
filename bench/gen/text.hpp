#pragma once

#include "gen/rng.hpp"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace cachewise::gen {

// Text: prose for prompts and replies, code and log lines for tool results.

// Word tables the generator draws names, paths and phrases from.
extern const std::vector<std::string_view> k_words;    // nouns
extern const std::vector<std::string_view> k_verbs;    // imperatives
extern const std::vector<std::string_view> k_unicode;  // non-ASCII words and symbols
extern const std::vector<std::string_view> k_exts;     // file extensions
extern const std::vector<std::string_view> k_projects; // project folder names

// An identifier: one or two snake_case words, now and then a digit.
std::string ident(Rng& rng);

// One sentence of instructions or a reply, from eight templates.
std::string sentence(Rng& rng);

// Sentences and headings until the text holds at least `target` bytes.
std::string prose(Rng& rng, std::size_t target);

// A pool of lines built once; tool results are random runs of it.
class TextPool {
public:
    explicit TextPool(Rng& rng);

    // About `target` bytes of lines; `numbered` prefixes "   12→" as a file
    // viewer does.
    [[nodiscard]] std::string text(Rng& rng, std::size_t target, bool numbered) const;

private:
    static constexpr std::size_t k_size = 16384;
    std::vector<std::string> m_lines;
};

} // namespace cachewise::gen
