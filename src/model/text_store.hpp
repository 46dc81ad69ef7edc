#pragma once

#include "util/hash.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

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
// are read back when asked for: memory keeps an offset per text. They are
// written in batches of k_write_batch bytes, not one system call a text (a
// 1 GB Claude Code folder spills about 290,000), by a thread of the store's
// own, so that the threads that put texts do not copy them into the page
// cache too. Without a temporary file everything stays in memory, as before.
//
// The loader's worker threads put into one store at once, about ten million
// times on a 1 GB log, mostly texts kept already. One lock for the store
// made them wait on each other (600,000 futex calls on that log), so the
// texts are split into shards by hash, each with its own lock; the file has
// its own.
//
// A pass that needs only a property of each text (may it hold a secret?)
// sets a tagger: it runs once per distinct text as the text is put, on the
// worker that rendered it, so that pass need not read every text back on
// the one thread that replays the log.
class TextStore {
public:
    static constexpr std::size_t k_memory_budget = std::size_t{8} << 20;
    static constexpr std::size_t k_write_batch = std::size_t{1} << 20;
    using Tagger = std::uint8_t (*)(std::string_view bytes);

    explicit TextStore(std::size_t memory_budget = k_memory_budget);
    ~TextStore();
    TextStore(const TextStore&) = delete;
    TextStore& operator=(const TextStore&) = delete;
    // A moved-from store may only be assigned to or destroyed.
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

    [[nodiscard]] std::size_t size() const;
    [[nodiscard]] std::size_t bytes() const;
    // Of bytes(), those in the temporary file.
    [[nodiscard]] std::size_t spilled_bytes() const;

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

} // namespace cachewise::model
