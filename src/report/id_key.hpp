#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace cachewise::report {

// Request ids of file-per-request logs are file paths ("/work/logs/run-7/
// call-0003.json:1"): a text table of them is mostly the folder they share.
// Text and markdown reports print the ids without that folder and name it
// once, in a key next to the table; the HTML page does not name it (it holds
// no path of the run); JSON, CSV and SARIF keep the full ids.
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

    const std::string& folder() const { return m_folder; }

private:
    std::string m_folder; // ends in '/', or empty
};

} // namespace cachewise::report
