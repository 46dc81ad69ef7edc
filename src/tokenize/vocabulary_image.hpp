#pragma once

#include "tokenize/tokenizer.hpp"
#include "util/expected.hpp"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

namespace cachewise::tokenize {

// A built vocabulary on disk. Reading a rank file, checking its SHA-256 and
// hashing its 200k tokens takes about 20 ms, most of `lint`'s time on an
// OpenAI template; the next run maps the image's tables instead (about
// 1 ms), as ccache keeps what it has computed.

// The vocabulary file an image was built from: the manifest's SHA-256, which
// the file matched when the image was built, and the file's size,
// modification time and inode, so that a changed file is read and checked
// again rather than trusted.
struct SourceStamp {
    std::string sha256;
    std::uint64_t size = 0;
    std::int64_t mtime_ns = 0;
    std::uint64_t inode = 0;
    bool operator==(const SourceStamp&) const = default;
};
Expected<SourceStamp> stamp_of(const std::string& path, std::string sha256);

// Writes the vocabulary and the traits of `tokenizer` (its name aside) as an
// image at `path`, whole or not at all (AtomicFile): a reader never maps
// half of one.
Expected<bool> write_vocabulary_image(const std::string& path, const Tokenizer& tokenizer,
                                      const SourceStamp& stamp);

// The tokenizer of the image at `path`, named `name`, its vocabulary mapped.
// The error says why it is not used: missing, of another format, built from
// another file, or damaged (its XXH3 checksum, checked on every read,
// differs).
Expected<std::unique_ptr<Tokenizer>>
read_vocabulary_image(const std::string& path, const SourceStamp& stamp, std::string name);

// Where images go: $CACHEWISE_VOCABULARY_CACHE ("off": nowhere), else
// $XDG_CACHE_HOME/cachewise/vocabularies, else ~/.cache/cachewise/vocabularies.
std::optional<std::filesystem::path> vocabulary_image_dir();

} // namespace cachewise::tokenize
