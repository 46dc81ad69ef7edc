#pragma once

#include "util/hash.hpp"

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

namespace cachewise::model {

// Rendered segment bytes, kept once per distinct content. Agent logs repeat
// their whole history in every request, so the store grows with the distinct
// content of a log, not with its size. Only analyses that quote text (the
// divergence excerpts, dynamic fields, secrets) ask for one, and rarely
// after the request that brought it was read.
//
// So that a long log of distinct content does not hold it all in memory,
// texts beyond `memory_budget` bytes go to an anonymous temporary file (in
// $TMPDIR, removed by the system when the process ends, however it ends) and
// are read back when asked for: memory keeps an offset per text. Without a
// temporary file everything stays in memory, as before. The loader's worker
// threads put into one store at once: every call takes a lock.
//
// A pass that needs only a property of each text (may it hold a secret?)
// sets a tagger: it runs once per distinct text as the text is put, on the
// worker that rendered it, so that pass need not read every text back on
// the one thread that replays the log.
class TextStore {
public:
    static constexpr std::size_t k_memory_budget = std::size_t{32} << 20;
    using Tagger = std::uint8_t (*)(std::string_view bytes);

    explicit TextStore(std::size_t memory_budget = k_memory_budget);
    ~TextStore();
    TextStore(const TextStore&) = delete;
    TextStore& operator=(const TextStore&) = delete;
    TextStore(TextStore&& other) noexcept;
    TextStore& operator=(TextStore&& other) noexcept;

    void put(const Hash128& content, std::string_view bytes);
    [[nodiscard]] std::optional<std::string> get(const Hash128& content) const;
    // Keeps the text of `from` under `to` as well (a block whose identity a
    // message header extended). A log that resends its history aliases every
    // message again each turn, and `to` is kept already: then nothing is read
    // back or copied.
    void alias(const Hash128& from, const Hash128& to);

    // Texts put from now on are tagged by `tagger`.
    void set_tagger(Tagger tagger);
    // The tagger's value for a kept text; nullopt when the text is not kept
    // or was put before a tagger was set.
    [[nodiscard]] std::optional<std::uint8_t> tags(const Hash128& content) const;

    [[nodiscard]] std::size_t size() const
    {
        const std::lock_guard lock(m_mutex);
        return m_texts.size() + m_spilled.size();
    }
    [[nodiscard]] std::size_t bytes() const
    {
        const std::lock_guard lock(m_mutex);
        return m_bytes;
    }
    // Of bytes(), those in the temporary file.
    [[nodiscard]] std::size_t spilled_bytes() const
    {
        const std::lock_guard lock(m_mutex);
        return m_file_size;
    }

private:
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
    [[nodiscard]] bool kept(const Hash128& content) const;
    [[nodiscard]] bool spill(const Hash128& content, std::string_view bytes, Tags tags);

    std::unordered_map<Hash128, Held, Hash128Hasher> m_texts;
    std::unordered_map<Hash128, Spilled, Hash128Hasher> m_spilled;
    std::size_t m_budget;
    std::size_t m_bytes = 0;
    std::size_t m_memory_bytes = 0;
    int m_fd = -1;          // the temporary file, once one is needed
    bool m_no_file = false; // it could not be made: everything stays in memory
    std::uint64_t m_file_size = 0;
    Tagger m_tagger = nullptr;
    mutable std::mutex m_mutex;
};

} // namespace cachewise::model
