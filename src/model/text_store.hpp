#pragma once

#include "util/hash.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

namespace cachewise::model {

// Rendered segment bytes, kept once per distinct content. Agent logs repeat
// their whole history in every request, so the store grows with the distinct
// content of a log, not with its size. Only analyses that quote text (the
// divergence excerpts) ask for one.
class TextStore {
public:
    void
    put(const Hash128& content, std::string_view bytes)
    {
        if (m_texts.find(content) == m_texts.end()) {
            m_bytes += bytes.size();
            m_texts.emplace(content, std::string(bytes));
        }
    }
    [[nodiscard]] std::optional<std::string_view>
    get(const Hash128& content) const
    {
        const auto it = m_texts.find(content);
        if (it == m_texts.end()) {
            return std::nullopt;
        }
        return std::string_view(it->second);
    }
    [[nodiscard]] std::size_t
    size() const
    {
        return m_texts.size();
    }
    [[nodiscard]] std::size_t
    bytes() const
    {
        return m_bytes;
    }

private:
    std::unordered_map<Hash128, std::string, Hash128Hasher> m_texts;
    std::size_t m_bytes = 0;
};

} // namespace cachewise::model
