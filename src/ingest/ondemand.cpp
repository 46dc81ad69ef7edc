#include "ingest/ondemand.hpp"

namespace cachewise::ingest {

std::string_view
describe(od::json_type type)
{
    switch (type) {
    case od::json_type::array:
        return "an array";
    case od::json_type::object:
        return "an object";
    case od::json_type::number:
        return "a number";
    case od::json_type::string:
        return "a string";
    case od::json_type::boolean:
        return "a boolean";
    case od::json_type::null:
        return "null";
    }
    return "a value";
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
