#pragma once

#include <stdexcept>
#include <string>

namespace cachewise {

// Exit statuses shared by every command (documented in man/cachewise.1).
enum class ExitCode : int {
    ok = 0,
    findings = 1, // findings at or above --fail-on (CI gate)
    usage = 2,    // bad command line, unreadable or unusable input, bad rules
    network = 3,  // probe: a network, TLS or provider error (after the retries)
    skipped = 77, // a GPU benchmark without a GPU
};

// The one error type that commands throw. It is caught once, in cli::run(),
// which prints "cachewise: error: <what>" and exits with code().
class Error : public std::runtime_error {
public:
    explicit Error(const std::string& message, ExitCode code = ExitCode::usage)
        : std::runtime_error(message), m_code(code)
    {}

    [[nodiscard]] ExitCode code() const noexcept { return m_code; }

private:
    ExitCode m_code;
};

} // namespace cachewise
