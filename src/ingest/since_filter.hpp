#pragma once

#include "util/time.hpp"

#include <string>

namespace cachewise::ingest {

// Records are appended as they happen: a file last written before `since`
// holds nothing newer, and is skipped unread. Standard input never is.
bool written_before(const std::string& path, const Timestamp& since);

} // namespace cachewise::ingest
