#include "report/id_key.hpp"

#include <algorithm>

namespace cachewise::report {

IdKey::IdKey(const std::vector<std::string_view>& ids)
{
    if (ids.empty()) {
        return;
    }
    std::string_view common = ids.front();
    for (const auto id : ids) {
        const auto mismatch = std::mismatch(common.begin(), common.end(), id.begin(), id.end());
        common = common.substr(0, static_cast<std::size_t>(mismatch.first - common.begin()));
    }
    // A whole folder only: "/logs/call-1" and "/logs/call-2" share "/logs/",
    // not "/logs/call-", and an id is never shortened to nothing.
    const auto slash = common.rfind('/');
    if (slash == std::string_view::npos) {
        return;
    }
    common = common.substr(0, slash + 1);
    for (const auto id : ids) {
        if (id.size() == common.size()) {
            return;
        }
    }
    m_folder = std::string(common);
}

std::string
IdKey::shorten_in(std::string_view message) const
{
    if (m_folder.empty()) {
        return std::string(message);
    }
    std::string out;
    for (std::size_t at = 0;;) {
        const std::size_t found = message.find(m_folder, at);
        out += message.substr(at, found - at);
        if (found == std::string_view::npos) {
            return out;
        }
        at = found + m_folder.size();
    }
}

std::string_view
IdKey::shorten(std::string_view id) const
{
    if (!m_folder.empty() && id.size() > m_folder.size() &&
        id.substr(0, m_folder.size()) == m_folder) {
        id.remove_prefix(m_folder.size());
    }
    return id;
}

std::string
IdKey::note() const
{
    return m_folder.empty() ? std::string() : "ids relative to " + m_folder;
}

} // namespace cachewise::report
