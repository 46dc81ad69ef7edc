#pragma once

#include <string_view>

namespace cachewise::ingest {

// Members of an exchange record that are not part of the request body
// (response, id, session, times, provider, cost, ...): one table, read by
// RecordReader::body_record and by the first look at a record.
bool is_record_key(std::string_view key);

} // namespace cachewise::ingest
