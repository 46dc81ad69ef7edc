#pragma once

#include "util/expected.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace cachewise::ingest {

// A part of a JSONL file read on its own: bytes [begin, end), whole lines.
struct FilePart {
    std::uint64_t begin = 0;
    std::uint64_t end = 0;
};

// Splits a file of `size` bytes into parts of about `part_size` bytes, each
// ending where a line ends as LineReader cuts lines (LF, CRLF, or a lone
// CR), the first no earlier than `first_min`. A line longer than a part
// makes its part longer.
Expected<std::vector<FilePart>> split_lines(const std::string& path, std::uint64_t size,
                                            std::uint64_t part_size, std::uint64_t first_min);

// The lines of a part as LineReader counts them; a last line without an end
// counts (it can only be the file's last).
std::uint64_t count_lines(std::string_view text);

// A part's bytes, followed by `padding` readable bytes (spaces).
Expected<std::unique_ptr<char[]>> read_part(const std::string& path, const FilePart& part,
                                            std::size_t padding);

} // namespace cachewise::ingest
