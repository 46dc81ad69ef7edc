// libFuzzer harness for the log readers: the input is written to a file and
// loaded with the format given at build time (CACHEWISE_FUZZ_FORMAT), so
// each reader has a harness of its own; "auto" runs format detection and
// reaches every reader. A crash, a sanitizer report or a slow input is a
// bug; broken records are expected.
#include "ingest/loader.hpp"
#include "ruleset/rules.hpp"

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>
#include <unistd.h>

#ifndef CACHEWISE_FUZZ_FORMAT
#define CACHEWISE_FUZZ_FORMAT "auto"
#endif

namespace {

const std::string&
scratch_path()
{
    static const std::string path =
        "/tmp/cachewise-fuzz-" + std::to_string(::getpid()) + "-" CACHEWISE_FUZZ_FORMAT ".jsonl";
    return path;
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
LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/)
{
    (void)rules();
    return 0;
}

extern "C" int
LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    using namespace cachewise;
    {
        std::ofstream out(scratch_path(), std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    }
    ingest::LoadOptions options;
    options.format = *ingest::parse_input_format(CACHEWISE_FUZZ_FORMAT);
    options.max_record_bytes = std::size_t{1} << 20;
    model::TextStore texts;
    options.text_store = &texts;
    ingest::Loader loader(rules(), options);
    std::size_t requests = 0;
    (void)loader.load({scratch_path()},
                      [&](model::Request&& r) { requests += r.segments.size() > 0 ? 1 : 0; });
    return 0;
}
