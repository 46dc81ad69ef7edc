// libFuzzer harness for --baseline: any file is a result or an input error
// (cachewise::Error), never a crash.
#include "analysis/rule_catalogue.hpp"
#include "cli/gate.hpp"
#include "scratch_file.hpp"
#include "util/error.hpp"

#include <cstdint>
#include <string>

extern "C" int
// NOLINTNEXTLINE(readability-identifier-naming): the name libFuzzer calls
LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    using namespace cachewise;
    static const fuzz::ScratchFile scratch("baseline.json");
    const std::string path = scratch.write(data, size).string();
    analysis::Finding f = analysis::make_finding("CW010");
    f.file = "a.json";
    f.kind = "date";
    f.excerpt = analysis::Excerpt{"", "2026-01-01"};
    try {
        const auto baseline = cli::read_baseline(path, "");
        cli::Gate gate;
        gate.fail_on = cli::FailOn::parse("warning").value();
        gate.baseline = &baseline;
        gate.max_regression = 1.0;
        const auto fresh = cli::new_findings({f}, gate);
        (void)cli::gate_status(fresh, gate, 0.5);
    } catch (const Error&) {
        // an input error: what a broken baseline must give
    }
    return 0;
}
