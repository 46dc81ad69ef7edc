#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace cachewise::report {

// Request ids of file-per-request logs are file paths ("/work/logs/run-7/
// call-0003.json:1"): a text table of them is mostly the folder they share.
// Text and markdown reports print the ids without that folder and name it
// once, in a key next to the table; the HTML page does not name it (it holds
// no path of the run); JSON, CSV and SARIF keep the full ids. Absolute and
// relative ids (inputs given both ways) each lose their own shared folder,
// so that no absolute path is left to the HTML page.
class IdKey {
public:
    IdKey() = default;
    explicit IdKey(const std::vector<std::string_view>& ids);

    // `id` without the shared folder (unchanged when it does not start with it).
    std::string_view shorten(std::string_view id) const;
    // A message with every id it names shortened: the folder cut wherever
    // it occurs.
    std::string shorten_in(std::string_view message) const;

    // "ids relative to /work/logs/run-7/", or "" when the ids share no folder.
    std::string note() const;

private:
    // The folder shared by the ids that start with `absolute` ('/' or not).
    static std::string shared_folder(const std::vector<std::string_view>& ids, bool absolute);

    std::vector<std::string> m_folders; // each ends in '/'; at most one absolute
};

} // namespace cachewise::report
