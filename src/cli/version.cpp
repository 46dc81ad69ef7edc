#include "cli/options.hpp"

#include <CLI/Version.hpp>
#include <curl/curl.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <simdjson.h>
#include <xxhash.h>

#ifndef CACHEWISE_VERSION
#define CACHEWISE_VERSION "unknown"
#endif

namespace cachewise::cli {

namespace {

#define CACHEWISE_STR2(x) #x
#define CACHEWISE_STR(x) CACHEWISE_STR2(x)

// SIMDJSON_VERSION is an unquoted token sequence (3.0.1).
constexpr const char* k_simdjson_version = CACHEWISE_STR(SIMDJSON_VERSION);
// The On-Demand kernel compiled into this binary (see cmake/Simd.cmake).
constexpr const char* k_simdjson_kernel = CACHEWISE_STR(SIMDJSON_BUILTIN_IMPLEMENTATION);
// "yes": this build made the CUDA module that `bench prefill` loads.
#ifdef CACHEWISE_HAVE_CUDA
constexpr const char* k_cuda = "yes";
#else
constexpr const char* k_cuda = "no";
#endif

} // namespace

// Compile-time versions only: asking a library for its own would load it
// (libcurl is loaded by the first request, the CUDA module by bench prefill).
std::string
version_text()
{
    return fmt::format("cachewise {}\n"
                       "features: simdjson {} ({}), xxhash {}.{}.{} (XXH3-128), re2, fmt {}.{}.{}, "
                       "nlohmann_json {}.{}.{}, CLI11 {}, libcurl {}, cuda-prefill-bench {}",
                       CACHEWISE_VERSION, k_simdjson_version, k_simdjson_kernel, XXH_VERSION_MAJOR,
                       XXH_VERSION_MINOR, XXH_VERSION_RELEASE, FMT_VERSION / 10000,
                       FMT_VERSION / 100 % 100, FMT_VERSION % 100, NLOHMANN_JSON_VERSION_MAJOR,
                       NLOHMANN_JSON_VERSION_MINOR, NLOHMANN_JSON_VERSION_PATCH, CLI11_VERSION,
                       LIBCURL_VERSION, k_cuda);
}

} // namespace cachewise::cli
