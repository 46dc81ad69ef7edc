#include "model/usage.hpp"

#include "util/enum_names.hpp"

namespace cachewise::model {

constexpr auto k_origin_names =
    util::names_of<Usage::Origin>({"response", "sse", "transcript", "span"});

std::string_view
to_string(Usage::Origin origin)
{
    return k_origin_names[origin];
}

} // namespace cachewise::model
