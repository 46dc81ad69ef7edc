// libFuzzer harness for the log readers: the input is written to a file and
// loaded with the format given at build time (CACHEWISE_FUZZ_FORMAT), so
// each reader has a harness of its own; "auto" runs format detection and
// reaches every reader. A crash, a sanitizer report or a slow input is a
// bug; broken records are expected.
#include "ingest/loader.hpp"
#include "ruleset/rules.hpp"
#include "scratch_file.hpp"

#include <cstdint>
#include <string>

#ifndef CACHEWISE_FUZZ_FORMAT
#define CACHEWISE_FUZZ_FORMAT "auto"
#endif

namespace {

const cachewise::fuzz::ScratchFile&
scratch()
{
    static const cachewise::fuzz::ScratchFile file(CACHEWISE_FUZZ_FORMAT ".jsonl");
    return file;
}

const cachewise::ruleset::Rules&
rules()
{
    static const auto loaded = cachewise::ruleset::load_rules(std::nullopt);
    return *loaded;
}

} // namespace

// The rules are loaded once, before the first input: their RE2 patterns take
// longer to compile under ASan than the one-second limit on an input.
extern "C" int
// NOLINTNEXTLINE(readability-identifier-naming): the name libFuzzer calls
LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/)
{
    (void)rules();
    return 0;
}

extern "C" int
// NOLINTNEXTLINE(readability-identifier-naming): the name libFuzzer calls
LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    using namespace cachewise;
    const std::string path = scratch().write(data, size).string();
    ingest::LoadOptions options;
    options.format = *ingest::parse_input_format(CACHEWISE_FUZZ_FORMAT);
    options.max_record_bytes = std::size_t{1} << 20;
    model::TextStore texts;
    options.text_store = &texts;
    ingest::Loader loader(rules(), options);
    std::size_t requests = 0;
    (void)loader.load({path}, [&](model::Request&& r) { requests += r.segments.empty() ? 0 : 1; });
    return 0;
}
