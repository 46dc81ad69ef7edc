#pragma once

#include "util/atomic_file.hpp"

#include <optional>
#include <string>

namespace cachewise::cli {

// Where a command's standard output goes. With -o FILE, everything the
// command prints (fmt, iostreams) is redirected at the descriptor level into
// an AtomicFile, committed only when the command succeeded (status 0, or 1
// for a failed gate: the report is still the result); otherwise FILE keeps
// its old content. Without -o, standard output is checked at the end: a
// write error (a full disk, a closed pipe, /dev/full) is an error too.
class Output {
public:
    // Throws Error when FILE cannot be created in its folder.
    explicit Output(const std::optional<std::string>& file);
    ~Output();
    Output(const Output&) = delete;
    Output& operator=(const Output&) = delete;

    // Flushes and checks what was written; returns the exit status, 2 with
    // the error printed when the output could not be written.
    int finish(int status);

private:
    void restore() noexcept;

    std::optional<AtomicFile> m_file;
    int m_saved_stdout = -1;
};

} // namespace cachewise::cli
