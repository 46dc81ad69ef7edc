#include "tokenize/vocabulary_image.hpp"

#include "tokenize/mapped_file.hpp"
#include "util/atomic_file.hpp"
#include "util/file.hpp"

#include <fmt/format.h>
#include <xxhash.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <strings.h>
#include <sys/stat.h>
#include <type_traits>

namespace cachewise::tokenize {

namespace {

constexpr std::uint32_t k_version = 2; // bump when the tables' layout changes
// As written: an image of a machine of the other byte order is not read.
constexpr std::uint32_t k_byte_order = 0x01020304U;
constexpr char k_magic[8] = {'C', 'W', 'V', 'O', 'C', 'A', 'B', '\0'};

struct Header {
    char magic[8];
    std::uint32_t version;
    std::uint32_t byte_order;
    char sha256[64];
    std::uint64_t source_size;
    std::int64_t source_mtime_ns;
    std::uint64_t source_inode;
    std::uint64_t count;
    std::uint64_t merge_count;
    std::uint64_t bytes; // lengths of the four tables, in elements
    std::uint64_t spans;
    std::uint64_t slots;
    std::uint64_t pairs;
    std::uint64_t traits;       // bytes of the traits after the tables
    std::uint64_t payload_xxh3; // of everything after the header
    TokenId byte_tokens[256];
};
static_assert(std::is_trivially_copyable_v<Header> && sizeof(Header) % 8 == 0);
static_assert(sizeof(Vocabulary::PairSlot) == 16);

constexpr std::size_t
aligned(std::size_t n)
{
    return (n + 7) / 8 * 8;
}

// Offsets of the four tables after the header, each 8-byte aligned, then of
// the traits; [5] is the end.
std::array<std::size_t, 6>
layout(const Header& h)
{
    std::array<std::size_t, 6> at{};
    at[0] = sizeof(Header);
    at[1] = at[0] + aligned(h.bytes);
    at[2] = at[1] + h.spans * sizeof(std::uint64_t);
    at[3] = at[2] + aligned(h.slots * sizeof(TokenId));
    at[4] = at[3] + h.pairs * sizeof(Vocabulary::PairSlot);
    at[5] = at[4] + h.traits;
    return at;
}

void
put_u32(std::string& out, std::uint32_t v)
{
    out.append(reinterpret_cast<const char*>(&v), sizeof v); // NOLINT: raw bytes
}

// The traits the tokenizer was built with: the pre-tokeniser by name, the
// flags, the special tokens.
std::string
traits_bytes(const TokenizerTraits& traits)
{
    std::string out;
    const std::string_view pre = to_string(traits.pre_tokenizer);
    put_u32(out, static_cast<std::uint32_t>(pre.size()));
    out += pre;
    out += static_cast<char>(traits.whole_piece_first);
    out += static_cast<char>(traits.nfc);
    put_u32(out, static_cast<std::uint32_t>(traits.special_tokens.size()));
    for (const auto& [text, id] : traits.special_tokens) {
        put_u32(out, id);
        put_u32(out, static_cast<std::uint32_t>(text.size()));
        out += text;
    }
    return out;
}

// Reads what traits_bytes wrote; nothing when it is cut short or names no
// pre-tokeniser cachewise knows.
std::optional<TokenizerTraits>
traits_of(std::string_view in)
{
    const auto u32 = [&in](std::uint32_t& v) {
        if (in.size() < sizeof v) {
            return false;
        }
        std::memcpy(&v, in.data(), sizeof v);
        in.remove_prefix(sizeof v);
        return true;
    };
    const auto text = [&in](std::uint32_t n, std::string_view& v) {
        if (in.size() < n) {
            return false;
        }
        v = in.substr(0, n);
        in.remove_prefix(n);
        return true;
    };
    TokenizerTraits t;
    std::uint32_t n = 0;
    std::string_view name;
    std::string_view flags;
    if (!u32(n) || !text(n, name) || !text(2, flags) || !u32(n)) {
        return std::nullopt;
    }
    const auto pre = parse_pre_tokenizer(name);
    if (!pre) {
        return std::nullopt;
    }
    t.pre_tokenizer = *pre;
    t.whole_piece_first = flags[0] != 0;
    t.nfc = flags[1] != 0;
    for (std::uint32_t i = 0; i < n; ++i) {
        std::uint32_t id = 0;
        std::uint32_t size = 0;
        std::string_view special;
        if (!u32(id) || !u32(size) || !text(size, special)) {
            return std::nullopt;
        }
        t.special_tokens.emplace_back(std::string(special), id);
    }
    return in.empty() ? std::optional(std::move(t)) : std::nullopt;
}

// The four tables as written, each padded to 8 bytes, then the traits.
std::array<std::string_view, 9>
payload_parts(const Vocabulary::Tables& t, std::string_view traits)
{
    static constexpr char k_zeros[8] = {};
    const auto part = [](const void* data, std::size_t size) {
        return std::string_view(static_cast<const char*>(data), size);
    };
    const auto pad = [](std::size_t size) {
        return std::string_view(k_zeros, aligned(size) - size);
    };
    return {part(t.bytes.data(), t.bytes.size()),
            pad(t.bytes.size()),
            part(t.spans.data(), t.spans.size_bytes()),
            pad(t.spans.size_bytes()),
            part(t.slots.data(), t.slots.size_bytes()),
            pad(t.slots.size_bytes()),
            part(t.pairs.data(), t.pairs.size_bytes()),
            pad(t.pairs.size_bytes()),
            traits};
}

template <typename T>
std::span<const T>
table_at(std::string_view image, std::size_t offset, std::size_t count)
{
    // The image is page-aligned (mapped) or malloc'd, its offsets 8-aligned.
    return {reinterpret_cast<const T*>(image.data() + offset), count}; // NOLINT: a mapped table
}

// The header of `image`, once the image is known whole, of this format and
// built from `stamp`'s file.
Expected<Header>
checked_header(std::string_view image, const SourceStamp& stamp, const std::string& path)
{
    Header h{};
    if (image.size() < sizeof h) {
        return unexpected(fmt::format("{}: too short for a vocabulary image", path));
    }
    std::memcpy(&h, image.data(), sizeof h);
    if (std::memcmp(h.magic, k_magic, sizeof k_magic) != 0 || h.version != k_version ||
        h.byte_order != k_byte_order) {
        return unexpected(fmt::format("{}: not a vocabulary image of this version", path));
    }
    const SourceStamp built{std::string(h.sha256, strnlen(h.sha256, sizeof h.sha256)),
                            h.source_size, h.source_mtime_ns, h.source_inode};
    if (!(built == stamp)) {
        return unexpected(fmt::format("{}: built from another vocabulary file", path));
    }
    // Each length within the file before any is multiplied: no wrap-around.
    for (const std::uint64_t n : {h.bytes, h.spans, h.slots, h.pairs, h.traits}) {
        if (n > image.size()) {
            return unexpected(fmt::format("{}: damaged (table sizes)", path));
        }
    }
    const auto at = layout(h);
    if (image.size() != at[5] ||
        XXH3_64bits(image.data() + at[0], image.size() - at[0]) != h.payload_xxh3) {
        return unexpected(fmt::format("{}: damaged (size or checksum)", path));
    }
    return h;
}

} // namespace

Expected<SourceStamp>
stamp_of(const std::string& path, std::string sha256)
{
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
        return unexpected(fmt::format("{}: {}", path, std::strerror(errno)));
    }
    return SourceStamp{std::move(sha256), static_cast<std::uint64_t>(st.st_size),
                       static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 +
                           st.st_mtim.tv_nsec,
                       static_cast<std::uint64_t>(st.st_ino)};
}

Expected<bool>
write_vocabulary_image(const std::string& path, const Tokenizer& tokenizer,
                       const SourceStamp& stamp)
{
    const auto& t = tokenizer.vocabulary().tables();
    const std::string traits = traits_bytes(tokenizer.traits());
    Header h{};
    std::memcpy(h.magic, k_magic, sizeof k_magic);
    h.version = k_version;
    h.byte_order = k_byte_order;
    std::memcpy(h.sha256, stamp.sha256.data(), std::min(stamp.sha256.size(), sizeof h.sha256));
    h.source_size = stamp.size;
    h.source_mtime_ns = stamp.mtime_ns;
    h.source_inode = stamp.inode;
    h.count = t.count;
    h.merge_count = t.merge_count;
    h.bytes = t.bytes.size();
    h.spans = t.spans.size();
    h.slots = t.slots.size();
    h.pairs = t.pairs.size();
    h.traits = traits.size();
    std::copy(t.byte_tokens.begin(), t.byte_tokens.end(), h.byte_tokens);

    // Written from the tables in place: a first run does not hold a copy.
    const auto parts = payload_parts(t, traits);
    XXH3_state_t* state = XXH3_createState();
    XXH3_64bits_reset(state);
    for (const auto part : parts) {
        XXH3_64bits_update(state, part.data(), part.size());
    }
    h.payload_xxh3 = XXH3_64bits_digest(state);
    XXH3_freeState(state);

    auto file = AtomicFile::create(path);
    if (!file) {
        return unexpected(file.error());
    }
    if (auto written = file->write(std::string_view(reinterpret_cast<const char*>(&h), // NOLINT
                                                    sizeof h));
        !written) {
        return unexpected(written.error());
    }
    for (const auto part : parts) {
        if (auto written = file->write(part); !written) {
            return unexpected(written.error());
        }
    }
    return file->commit();
}

Expected<std::unique_ptr<Tokenizer>>
read_vocabulary_image(const std::string& path, const SourceStamp& stamp, std::string name)
{
    auto mapped = MappedFile::open(path);
    if (!mapped) {
        return unexpected(mapped.error());
    }
    auto file = std::make_shared<MappedFile>(std::move(*mapped));
    const std::string_view image = file->bytes();
    const auto header = checked_header(image, stamp, path);
    if (!header) {
        return unexpected(header.error());
    }
    const Header& h = *header;
    const auto at = layout(h);
    auto traits = traits_of(image.substr(at[4], h.traits));
    if (!traits) {
        return unexpected(fmt::format("{}: damaged (traits)", path));
    }
    traits->name = std::move(name);
    Vocabulary::Tables t;
    t.bytes = image.substr(at[0], h.bytes);
    t.spans = table_at<std::uint64_t>(image, at[1], h.spans);
    t.slots = table_at<TokenId>(image, at[2], h.slots);
    t.pairs = table_at<Vocabulary::PairSlot>(image, at[3], h.pairs);
    std::copy(std::begin(h.byte_tokens), std::end(h.byte_tokens), t.byte_tokens.begin());
    t.count = h.count;
    t.merge_count = h.merge_count;
    return std::make_unique<Tokenizer>(std::move(*traits),
                                       Vocabulary::from_tables(t, std::move(file)));
}

std::optional<std::filesystem::path>
vocabulary_image_dir()
{
    namespace fs = std::filesystem;
    if (const char* dir = std::getenv("CACHEWISE_VOCABULARY_CACHE"); dir != nullptr) {
        if (*dir == '\0' || strcasecmp(dir, "off") == 0) {
            return std::nullopt;
        }
        return fs::path(dir); // the user's own choice, relative or not
    }
    const auto base = user_cache_dir();
    return base ? std::optional(*base / "cachewise" / "vocabularies") : std::nullopt;
}

} // namespace cachewise::tokenize
