#include "model/text_store.hpp"

#include "util/error.hpp"
#include "util/flat_map.hpp"

#include <fmt/format.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <mutex>
#include <string>
#include <unistd.h>
#include <utility>

namespace cachewise::model {

namespace {

// An unlinked file in $TMPDIR (or /tmp): nothing is left behind.
int
anonymous_file()
{
    const char* dir = std::getenv("TMPDIR");
    std::string pattern =
        std::string(dir != nullptr && *dir != '\0' ? dir : "/tmp") + "/cachewise-texts-XXXXXX";
    const int fd = ::mkstemp(pattern.data());
    if (fd >= 0) {
        ::unlink(pattern.c_str());
    }
    return fd;
}

struct Tags {
    std::uint8_t value = 0;
    bool set = false;
};

struct Held {
    std::string bytes;
    Tags tags;
};

struct Spilled {
    std::uint64_t offset = 0;
    std::uint32_t size = 0;
    Tags tags;
};

// The texts whose hash falls to it, under their own lock.
struct Shard {
    mutable std::mutex mutex;
    FlatMap<Hash128, Held, Hash128Hasher> texts;
    FlatMap<Hash128, Spilled, Hash128Hasher> spilled;

    [[nodiscard]] bool kept(const Hash128& content) const
    {
        return texts.find(content) != nullptr || spilled.find(content) != nullptr;
    }
    [[nodiscard]] Tags tags(const Hash128& content) const
    {
        if (const auto* held = texts.find(content)) {
            return held->tags;
        }
        const auto* where = spilled.find(content);
        return where != nullptr ? where->tags : Tags{};
    }
};

// The temporary file: texts are appended to a batch, written out when it
// is full. A text lies whole in the file or whole in the batch.
class SpillFile {
public:
    ~SpillFile()
    {
        if (m_fd >= 0) {
            ::close(m_fd);
        }
    }

    // The offset `bytes` is kept at, or nullopt: no file could be made, or
    // writing failed (the disk is full): the caller keeps the text in memory.
    std::optional<std::uint64_t> append(std::string_view bytes)
    {
        const std::lock_guard lock(m_mutex);
        if (m_fd < 0 && !m_failed) {
            m_fd = anonymous_file();
            m_failed = m_fd < 0;
        }
        if (m_failed || bytes.size() > UINT32_MAX) {
            return std::nullopt;
        }
        const std::uint64_t offset = m_flushed + m_batch.size();
        m_batch.append(bytes);
        if (m_batch.size() >= TextStore::k_write_batch) {
            flush();
        }
        return offset;
    }

    [[nodiscard]] std::string read(const Spilled& where) const
    {
        std::string out(where.size, '\0');
        const std::lock_guard lock(m_mutex);
        if (where.offset >= m_flushed) {
            m_batch.copy(out.data(), out.size(), where.offset - m_flushed);
            return out;
        }
        std::size_t read = 0;
        while (read < out.size()) {
            const auto n = ::pread(m_fd, out.data() + read, out.size() - read,
                                   static_cast<off_t>(where.offset + read));
            if (n <= 0) {
                // The file was written by this process and is still open: a
                // short read is an I/O error, and a quote is never made up.
                throw Error(fmt::format("reading back a text kept in a temporary file: {}",
                                        std::strerror(errno)),
                            ExitCode::usage);
            }
            read += static_cast<std::size_t>(n);
        }
        return out;
    }

    [[nodiscard]] std::size_t size() const
    {
        const std::lock_guard lock(m_mutex);
        return m_flushed + m_batch.size();
    }

private:
    // On a failed write the batch stays in memory, where its texts are read
    // from, and nothing more is spilled.
    void flush()
    {
        std::size_t written = 0;
        while (written < m_batch.size()) {
            const auto n = ::pwrite(m_fd, m_batch.data() + written, m_batch.size() - written,
                                    static_cast<off_t>(m_flushed + written));
            if (n <= 0) {
                m_failed = true;
                return;
            }
            written += static_cast<std::size_t>(n);
        }
        m_flushed += m_batch.size();
        m_batch.clear();
    }

    mutable std::mutex m_mutex;
    int m_fd = -1;
    bool m_failed = false;
    std::uint64_t m_flushed = 0; // bytes in the file
    std::string m_batch;         // bytes after them, not written yet
};

} // namespace

struct TextStore::Impl {
    static constexpr std::size_t k_shards = 64;

    explicit Impl(std::size_t memory_budget) : budget(memory_budget) {}

    Shard& shard(const Hash128& content) { return shards[content.high % k_shards]; }
    const Shard& shard(const Hash128& content) const { return shards[content.high % k_shards]; }

    std::array<Shard, k_shards> shards;
    SpillFile file;
    std::size_t budget;
    std::atomic<std::size_t> bytes{0};
    std::atomic<std::size_t> memory_bytes{0};
    std::atomic<Tagger> tagger{nullptr};
};

TextStore::TextStore(std::size_t memory_budget) : m_impl(std::make_unique<Impl>(memory_budget)) {}

TextStore::~TextStore() = default;
TextStore::TextStore(TextStore&& other) noexcept = default;
TextStore& TextStore::operator=(TextStore&& other) noexcept = default;

void
TextStore::put(const Hash128& content, std::string_view bytes)
{
    Shard& shard = m_impl->shard(content);
    {
        const std::lock_guard lock(shard.mutex);
        if (shard.kept(content)) {
            return;
        }
    }
    // Tagged outside the lock, so that the workers tag in parallel.
    const Tagger tagger = m_impl->tagger.load();
    const Tags tags = tagger != nullptr ? Tags{tagger(bytes), true} : Tags{};
    const std::lock_guard lock(shard.mutex);
    if (shard.kept(content)) {
        return; // another worker put it meanwhile
    }
    m_impl->bytes += bytes.size();
    // Two workers may both pass the budget at once: it is exceeded by a text
    // or two, not more.
    if (m_impl->memory_bytes.load() + bytes.size() > m_impl->budget) {
        if (const auto offset = m_impl->file.append(bytes)) {
            *shard.spilled.try_emplace(content).first =
                Spilled{*offset, static_cast<std::uint32_t>(bytes.size()), tags};
            return;
        }
    }
    m_impl->memory_bytes += bytes.size();
    *shard.texts.try_emplace(content).first = Held{std::string(bytes), tags};
}

void
TextStore::alias(const Hash128& from, const Hash128& to)
{
    {
        const Shard& shard = m_impl->shard(to);
        const std::lock_guard lock(shard.mutex);
        if (shard.kept(to)) {
            return;
        }
    }
    if (const auto text = get(from)) {
        put(to, *text);
    }
}

void
TextStore::set_tagger(Tagger tagger)
{
    m_impl->tagger.store(tagger);
}

std::optional<std::uint8_t>
TextStore::tags(const Hash128& content) const
{
    const Shard& shard = m_impl->shard(content);
    const std::lock_guard lock(shard.mutex);
    const Tags tags = shard.tags(content);
    return tags.set ? std::optional(tags.value) : std::nullopt;
}

std::optional<std::string>
TextStore::get(const Hash128& content) const
{
    const Shard& shard = m_impl->shard(content);
    Spilled where;
    {
        const std::lock_guard lock(shard.mutex);
        if (const auto* held = shard.texts.find(content)) {
            return held->bytes;
        }
        const auto* spilled = shard.spilled.find(content);
        if (spilled == nullptr) {
            return std::nullopt;
        }
        where = *spilled;
    }
    return m_impl->file.read(where);
}

std::size_t
TextStore::size() const
{
    std::size_t n = 0;
    for (const auto& shard : m_impl->shards) {
        const std::lock_guard lock(shard.mutex);
        n += shard.texts.size() + shard.spilled.size();
    }
    return n;
}

std::size_t
TextStore::bytes() const
{
    return m_impl->bytes.load();
}

std::size_t
TextStore::spilled_bytes() const
{
    return m_impl->file.size();
}

} // namespace cachewise::model
