#include "model/text_store.hpp"

#include "util/error.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
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

} // namespace

TextStore::TextStore(std::size_t memory_budget) : m_budget(memory_budget) {}

TextStore::~TextStore()
{
    if (m_fd >= 0) {
        ::close(m_fd);
    }
}

TextStore::TextStore(TextStore&& other) noexcept : m_budget(other.m_budget)
{
    *this = std::move(other);
}

TextStore&
TextStore::operator=(TextStore&& other) noexcept
{
    if (this != &other) {
        const std::scoped_lock lock(m_mutex, other.m_mutex);
        if (m_fd >= 0) {
            ::close(m_fd);
        }
        m_texts = std::move(other.m_texts);
        m_spilled = std::move(other.m_spilled);
        m_budget = other.m_budget;
        m_bytes = other.m_bytes;
        m_memory_bytes = other.m_memory_bytes;
        m_fd = std::exchange(other.m_fd, -1);
        m_no_file = other.m_no_file;
        m_file_size = other.m_file_size;
        m_tagger = other.m_tagger;
    }
    return *this;
}

bool
TextStore::kept(const Hash128& content) const
{
    return m_texts.find(content) != m_texts.end() || m_spilled.find(content) != m_spilled.end();
}

bool
TextStore::spill(const Hash128& content, std::string_view bytes, Tags tags)
{
    if (m_fd < 0 && !m_no_file) {
        m_fd = anonymous_file();
        m_no_file = m_fd < 0;
    }
    if (m_fd < 0 || bytes.size() > UINT32_MAX) {
        return false;
    }
    std::size_t written = 0;
    while (written < bytes.size()) {
        const auto n = ::pwrite(m_fd, bytes.data() + written, bytes.size() - written,
                                static_cast<off_t>(m_file_size + written));
        if (n <= 0) {
            return false; // the disk is full: keep this one in memory
        }
        written += static_cast<std::size_t>(n);
    }
    m_spilled.emplace(content,
                      Spilled{m_file_size, static_cast<std::uint32_t>(bytes.size()), tags});
    m_file_size += bytes.size();
    return true;
}

void
TextStore::put(const Hash128& content, std::string_view bytes)
{
    Tagger tagger = nullptr;
    {
        const std::lock_guard lock(m_mutex);
        if (kept(content)) {
            return;
        }
        tagger = m_tagger;
    }
    // Tagged outside the lock, so that the workers tag in parallel.
    const Tags tags = tagger != nullptr ? Tags{tagger(bytes), true} : Tags{};
    const std::lock_guard lock(m_mutex);
    if (kept(content)) {
        return; // another worker put it meanwhile
    }
    m_bytes += bytes.size();
    if (m_memory_bytes + bytes.size() > m_budget && spill(content, bytes, tags)) {
        return;
    }
    m_memory_bytes += bytes.size();
    m_texts.emplace(content, Held{std::string(bytes), tags});
}

void
TextStore::alias(const Hash128& from, const Hash128& to)
{
    {
        const std::lock_guard lock(m_mutex);
        if (kept(to)) {
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
    const std::lock_guard lock(m_mutex);
    m_tagger = tagger;
}

std::optional<std::uint8_t>
TextStore::tags(const Hash128& content) const
{
    const std::lock_guard lock(m_mutex);
    Tags tags;
    if (const auto it = m_texts.find(content); it != m_texts.end()) {
        tags = it->second.tags;
    } else if (const auto spilled = m_spilled.find(content); spilled != m_spilled.end()) {
        tags = spilled->second.tags;
    }
    return tags.set ? std::optional(tags.value) : std::nullopt;
}

std::optional<std::string>
TextStore::get(const Hash128& content) const
{
    const std::lock_guard lock(m_mutex);
    if (const auto it = m_texts.find(content); it != m_texts.end()) {
        return it->second.bytes;
    }
    const auto it = m_spilled.find(content);
    if (it == m_spilled.end()) {
        return std::nullopt;
    }
    std::string out(it->second.size, '\0');
    std::size_t read = 0;
    while (read < out.size()) {
        const auto n = ::pread(m_fd, out.data() + read, out.size() - read,
                               static_cast<off_t>(it->second.offset + read));
        if (n <= 0) {
            // The file was written by this process and is still open: a short
            // read is an I/O error, and a quote is never made up.
            throw Error(fmt::format("reading back a text kept in a temporary file: {}",
                                    std::strerror(errno)),
                        ExitCode::usage);
        }
        read += static_cast<std::size_t>(n);
    }
    return out;
}

} // namespace cachewise::model
