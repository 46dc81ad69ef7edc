#include "ingest/ondemand.hpp"

#include <array>

namespace cachewise::ingest {

std::string_view
describe(od::json_type type)
{
    // simdjson counts its types from array = 1 (ondemand/json_type.h).
    static_assert(static_cast<int>(od::json_type::array) == 1 &&
                  static_cast<int>(od::json_type::null) == 6);
    static constexpr std::array<std::string_view, 7> k_names = {
        "a value", "an array", "an object", "a number", "a string", "a boolean", "null"};
    const auto i = static_cast<std::size_t>(type);
    return i < k_names.size() ? k_names[i] : k_names[0];
}

simdjson::simdjson_result<od::document>
iterate_twice_room(od::parser& parser, const char* data, std::size_t len, std::size_t capacity)
{
    // allocate(n) gives a string buffer of 5n/3: n = 2 len holds two passes.
    if (const std::size_t wanted = 2 * len; parser.capacity() < wanted) {
        // Out of memory: the parser is left as it was, and iterate sizes it
        // for one pass as before.
        [[maybe_unused]] const auto error = parser.allocate(wanted, parser.max_depth());
    }
    return parser.iterate(data, len, capacity);
}

simdjson::simdjson_result<od::document>
iterate_twice_room(od::parser& parser, const simdjson::padded_string& text)
{
    return iterate_twice_room(parser, text.data(), text.size(),
                              text.size() + simdjson::SIMDJSON_PADDING);
}

} // namespace cachewise::ingest
