#include "ingest/since_filter.hpp"

#include <chrono>
#include <filesystem>

namespace cachewise::ingest {

bool
written_before(const std::string& path, const Timestamp& since)
{
    if (path == "-") {
        return false;
    }
    std::error_code ec;
    const auto written = std::filesystem::last_write_time(path, ec);
    if (ec) {
        return false;
    }
    const auto since_epoch = std::chrono::duration_cast<std::chrono::microseconds>(
        std::chrono::file_clock::to_sys(written).time_since_epoch());
    return since_epoch.count() < since.micros;
}

} // namespace cachewise::ingest
