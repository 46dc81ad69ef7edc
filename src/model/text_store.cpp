#include "model/text_store.hpp"

#include "util/error.hpp"
#include "util/flat_map.hpp"

#include <fmt/format.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fcntl.h>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
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

// The temporary file: texts are appended to a batch, handed to a writer
// thread when it is full. A text lies whole in one batch: in memory until
// its batch is written, in the file after.
//
// The writes are the writer's, not the parse workers': on a 4 GB Claude
// Code folder about 1.5 GB is spilled, and copying it into the page cache
// took a tenth of a one-thread audit. At most k_in_flight batches wait for
// it; a worker that fills one more waits too. Without a thread to be had,
// a full batch is written by the worker that filled it.
class SpillFile {
public:
    ~SpillFile()
    {
        if (m_writer.joinable()) {
            {
                const std::lock_guard lock(m_mutex);
                m_stopping = true; // what waits is not needed: the file goes with us
            }
            m_work.notify_all();
            m_writer.join();
        }
        if (m_fd >= 0) {
            ::close(m_fd);
        }
    }

    // The offset `bytes` is kept at, or nullopt: no file could be made, or
    // writing failed (the disk is full): the caller keeps the text in memory.
    std::optional<std::uint64_t> append(std::string_view bytes)
    {
        std::unique_lock lock(m_mutex);
        if (m_fd < 0 && !m_failed) {
            m_fd = anonymous_file();
            m_failed = m_fd < 0;
        }
        if (m_failed || bytes.size() > UINT32_MAX) {
            return std::nullopt;
        }
        const std::uint64_t offset = m_batch_offset + m_batch.size();
        m_batch.append(bytes);
        if (m_batch.size() >= TextStore::k_write_batch) {
            hand_over(lock);
        }
        return offset;
    }

    [[nodiscard]] std::string read(const Spilled& where) const
    {
        std::string out(where.size, '\0');
        const std::lock_guard lock(m_mutex);
        if (where.offset >= m_batch_offset) {
            m_batch.copy(out.data(), out.size(), where.offset - m_batch_offset);
            return out;
        }
        if (const Batch* batch = in_memory(where.offset)) {
            batch->bytes.copy(out.data(), out.size(), where.offset - batch->offset);
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
        return m_batch_offset + m_batch.size();
    }

private:
    static constexpr std::size_t k_in_flight = 4;

    struct Batch {
        std::uint64_t offset = 0;
        std::string bytes;
    };

    // The full batch goes to the writer (started on the first), or is
    // written here when there is none.
    void hand_over(std::unique_lock<std::mutex>& lock)
    {
        if (!m_writer.joinable() && !m_no_writer) {
            try {
                m_writer = std::thread([this] { write_batches(); });
            } catch (const std::system_error&) {
                m_no_writer = true;
            }
        }
        if (m_no_writer) {
            Batch batch = take_batch();
            if (!write(batch)) {
                m_failed = true;
                m_kept.push_back(std::move(batch));
            }
            return;
        }
        m_room.wait(lock, [this] { return m_queue.size() < k_in_flight; });
        m_queue.push_back(take_batch());
        m_work.notify_one();
    }

    // The bytes appended so far, as a batch; the next one starts after them.
    Batch take_batch()
    {
        Batch batch{m_batch_offset, std::move(m_batch)};
        m_batch_offset += batch.bytes.size();
        m_batch = {};
        return batch;
    }

    // The writer thread. A batch leaves the queue only once written, so
    // that it is read from memory until then. On a failed write it and
    // every batch after it stay in memory, and nothing more is spilled.
    void write_batches()
    {
        std::unique_lock lock(m_mutex);
        while (true) {
            m_work.wait(lock, [this] { return m_stopping || !m_queue.empty(); });
            if (m_stopping) {
                return;
            }
            const Batch& batch = m_queue.front(); // not moved while queued: a deque
            const bool failed_before = m_failed;  // only this thread sets it now
            lock.unlock();
            const bool written = !failed_before && write(batch);
            lock.lock();
            if (!written) {
                m_failed = true;
                m_kept.push_back(std::move(m_queue.front()));
            }
            m_queue.pop_front();
            m_room.notify_all();
        }
    }

    // pwrite of a whole batch at its offset; false when the disk refuses.
    bool write(const Batch& batch) const
    {
        std::size_t written = 0;
        while (written < batch.bytes.size()) {
            const auto n =
                ::pwrite(m_fd, batch.bytes.data() + written, batch.bytes.size() - written,
                         static_cast<off_t>(batch.offset + written));
            if (n <= 0) {
                return false;
            }
            written += static_cast<std::size_t>(n);
        }
        return true;
    }

    // The batch handed over but still in memory that holds `offset`, or null
    // (it is in the file).
    [[nodiscard]] const Batch* in_memory(std::uint64_t offset) const
    {
        for (const auto* list : {&m_queue, &m_kept}) {
            for (const auto& b : *list) {
                if (offset >= b.offset && offset < b.offset + b.bytes.size()) {
                    return &b;
                }
            }
        }
        return nullptr;
    }

    mutable std::mutex m_mutex;
    int m_fd = -1;
    bool m_failed = false;    // nothing more is spilled, nor written
    bool m_no_writer = false; // no thread could be started
    bool m_stopping = false;
    std::uint64_t m_batch_offset = 0; // where m_batch starts in the file
    std::string m_batch;              // bytes appended, not handed over yet
    std::deque<Batch> m_queue;        // handed over, not written yet
    std::deque<Batch> m_kept;         // never to be written (a failed write)
    std::condition_variable m_work;   // the writer has a batch, or is stopped
    std::condition_variable m_room;   // the queue has room
    std::thread m_writer;             // last: started with the first full batch
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
