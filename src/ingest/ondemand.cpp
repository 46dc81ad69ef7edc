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

} // namespace cachewise::ingest
