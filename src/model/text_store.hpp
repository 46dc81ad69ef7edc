#pragma once

#include "util/hash.hpp"

#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

namespace cachewise::model {

// Rendered segment bytes, kept once per distinct content. Agent logs repeat
// their whole history in every request, so the store grows with the distinct
// content of a log, not with its size. Only analyses that quote text (the
// divergence excerpts) ask for one. The loader's worker threads put into
// one store at once: every call is under a lock (a text, once in, never
// moves or goes, so a view returned stays valid).
class TextStore {
public:
    TextStore() = default;
    TextStore(TextStore&& other) noexcept { *this = std::move(other); }
    TextStore&
    operator=(TextStore&& other) noexcept
    {
        const std::scoped_lock lock(m_mutex, other.m_mutex);
        m_texts = std::move(other.m_texts);
        m_bytes = std::exchange(other.m_bytes, 0);
        return *this;
    }

    void
    put(const Hash128& content, std::string_view bytes)
    {
        const std::lock_guard lock(m_mutex);
        if (m_texts.find(content) == m_texts.end()) {
            m_bytes += bytes.size();
            m_texts.emplace(content, std::string(bytes));
        }
    }
    [[nodiscard]] std::optional<std::string_view>
    get(const Hash128& content) const
    {
        const std::lock_guard lock(m_mutex);
        const auto it = m_texts.find(content);
        if (it == m_texts.end()) {
            return std::nullopt;
        }
        return std::string_view(it->second);
    }
    [[nodiscard]] std::size_t
    size() const
    {
        const std::lock_guard lock(m_mutex);
        return m_texts.size();
    }
    [[nodiscard]] std::size_t
    bytes() const
    {
        const std::lock_guard lock(m_mutex);
        return m_bytes;
    }

private:
    std::unordered_map<Hash128, std::string, Hash128Hasher> m_texts;
    std::size_t m_bytes = 0;
    mutable std::mutex m_mutex;
};

} // namespace cachewise::model
