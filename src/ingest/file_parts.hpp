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

// The bytes of the parts one reader reads, one after another. Kept between
// parts: a new 4 MiB buffer per part took a page fault on most of its pages
// as the kernel copied into it (a sixth of the CPU time of a two-thread load
// of a 1 GB log).
struct PartBuffer {
    std::unique_ptr<char[]> bytes; // null: none yet, or lent out and not given back
    std::size_t capacity = 0;      // bytes, padding included
};

// Reads a part into `buffer` (grown when it does not fit), followed by
// `padding` readable bytes (spaces); gives the part's size.
Expected<std::size_t> read_part(const std::string& path, const FilePart& part, std::size_t padding,
                                PartBuffer& buffer);

} // namespace cachewise::ingest
