#include "tokenize/normalize.hpp"

#include <algorithm>
#include <unicode/bytestream.h>
#include <unicode/normalizer2.h>

namespace cachewise::tokenize {

std::optional<std::string>
to_nfc(std::string_view utf8)
{
    // Below U+0300 every code point is NFC and composes with nothing; its
    // UTF-8 never has a byte from 0xCC on.
    if (std::none_of(utf8.begin(), utf8.end(),
                     [](char c) { return static_cast<unsigned char>(c) >= 0xCC; })) {
        return std::nullopt;
    }
    UErrorCode status = U_ZERO_ERROR;
    const icu::Normalizer2* nfc = icu::Normalizer2::getNFCInstance(status);
    if (U_FAILURE(status) || nfc == nullptr) {
        return std::nullopt;
    }
    const icu::StringPiece in(utf8.data(), static_cast<std::int32_t>(utf8.size()));
    if (nfc->isNormalizedUTF8(in, status) && U_SUCCESS(status)) {
        return std::nullopt;
    }
    status = U_ZERO_ERROR;
    std::string out;
    icu::StringByteSink<std::string> sink(&out, static_cast<std::int32_t>(utf8.size()));
    nfc->normalizeUTF8(0, in, sink, nullptr, status);
    if (U_FAILURE(status)) {
        return std::nullopt;
    }
    return out;
}

} // namespace cachewise::tokenize
