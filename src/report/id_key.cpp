#include "report/id_key.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <optional>
#include <set>

namespace cachewise::report {

IdKey::IdKey(const std::vector<std::string_view>& ids)
{
    for (const bool absolute : {true, false}) {
        if (auto folder = shared_folder(ids, absolute); !folder.empty()) {
            m_folders.push_back(std::move(folder));
        }
    }
    // "/a/x.json:1" and "b/x.json:1" would both read "x.json:1": then the
    // relative ids, which name no folder of the machine, stay whole.
    if (m_folders.size() == 2) {
        std::set<std::string_view> shortened;
        std::set<std::string_view> distinct(ids.begin(), ids.end());
        for (const auto id : distinct) {
            shortened.insert(shorten(id));
        }
        if (shortened.size() != distinct.size()) {
            m_folders.pop_back();
        }
    }
}

std::string
IdKey::shared_folder(const std::vector<std::string_view>& ids, bool absolute)
{
    std::optional<std::string_view> common;
    for (const auto id : ids) {
        if (id.starts_with('/') != absolute) {
            continue;
        }
        if (!common) {
            common = id;
        }
        const auto mismatch = std::mismatch(common->begin(), common->end(), id.begin(), id.end());
        common = common->substr(0, static_cast<std::size_t>(mismatch.first - common->begin()));
    }
    // A whole folder only: "/logs/call-1" and "/logs/call-2" share "/logs/",
    // not "/logs/call-", and an id is never shortened to nothing.
    const auto slash = common ? common->rfind('/') : std::string_view::npos;
    if (slash == std::string_view::npos) {
        return {};
    }
    const std::string_view folder = common->substr(0, slash + 1);
    for (const auto id : ids) {
        if (id.size() == folder.size() && id == folder) {
            return {};
        }
    }
    return std::string(folder);
}

std::string
IdKey::shorten_in(std::string_view message) const
{
    std::string out(message);
    for (const auto& folder : m_folders) {
        std::string cut;
        for (std::size_t at = 0;;) {
            const std::size_t found = out.find(folder, at);
            cut += std::string_view(out).substr(at, found - at);
            if (found == std::string::npos) {
                break;
            }
            at = found + folder.size();
        }
        out = std::move(cut);
    }
    return out;
}

std::string_view
IdKey::shorten(std::string_view id) const
{
    for (const auto& folder : m_folders) {
        if (id.size() > folder.size() && id.starts_with(folder)) {
            id.remove_prefix(folder.size());
            break;
        }
    }
    return id;
}

std::string
IdKey::note() const
{
    return m_folders.empty() ? std::string()
                             : fmt::format("ids relative to {}", fmt::join(m_folders, " and "));
}

} // namespace cachewise::report
