#include "util/file.hpp"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

namespace cachewise {

Expected<std::string>
read_file(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        return unexpected(fmt::format("{}: cannot be read", path));
    }
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

} // namespace cachewise
