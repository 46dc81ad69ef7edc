#pragma once

#include "model/request.hpp"

#include <cstdint>
#include <optional>
#include <string>

namespace cachewise::advise {

// Exact token counts of a request's prefixes, for the decisions an estimate
// can only call borderline (lint --exact-tokens). The live implementation asks
// the provider's counting endpoint; tests can supply their own.
class PrefixCounter {
public:
    virtual ~PrefixCounter() = default;
    // Tokens of the prompt up to and including segment `segment` of
    // `request`, whose body is `body_json`; nothing when the provider has no
    // counting endpoint for this format. Throws Error when a count fails.
    virtual std::optional<std::int64_t> count_prefix(const std::string& body_json,
                                                     const model::Request& request,
                                                     std::size_t segment) = 0;
};

} // namespace cachewise::advise
