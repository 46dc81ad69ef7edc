#include "model/usage.hpp"

namespace cachewise::model {

std::string_view
to_string(Usage::Origin origin)
{
    switch (origin) {
    case Usage::Origin::response:
        return "response";
    case Usage::Origin::sse:
        return "sse";
    case Usage::Origin::transcript:
        return "transcript";
    case Usage::Origin::span:
        return "span";
    }
    return "?";
}

} // namespace cachewise::model
