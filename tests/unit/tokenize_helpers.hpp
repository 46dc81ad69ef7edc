#pragma once

// Shared by the tokenize tests: the shipped catalogue, loaded once.

#include "tokenize/catalogue.hpp"

#include <doctest/doctest.h>

#include <string>

namespace cachewise::test {

inline std::string
tokenizer_dir()
{
    return std::string(CACHEWISE_SOURCE_DIR) + "/rules/tokenizers";
}

inline tokenize::Catalogue&
catalogue()
{
    static tokenize::Catalogue c = [] {
        auto loaded = tokenize::Catalogue::load(tokenizer_dir(), std::nullopt);
        REQUIRE_MESSAGE(loaded.has_value(), (loaded ? "" : loaded.error()));
        return std::move(*loaded);
    }();
    return c;
}

inline const tokenize::Tokenizer&
shipped_tokenizer(const std::string& name)
{
    const auto* entry = catalogue().find(name);
    REQUIRE(entry != nullptr);
    auto t = catalogue().tokenizer(*entry);
    REQUIRE_MESSAGE(t.has_value(), (t ? "" : t.error()));
    return **t;
}

} // namespace cachewise::test
