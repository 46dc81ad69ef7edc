#pragma once

#include "model/request.hpp"

namespace cachewise::ingest {

// The strings of a request that printers show, made safe to print: no
// control character, no credential. The prompt's text is left as it is,
// its bytes are what the cache sees.
void make_printable(model::Request& request);

} // namespace cachewise::ingest
