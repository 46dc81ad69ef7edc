# Every dependency comes from the system (Debian packages, see README "Quick start").
# Each find records what it found for the configuration summary.
find_package(PkgConfig REQUIRED)

find_package(CLI11 2.1 CONFIG REQUIRED)
find_package(nlohmann_json 3.10 CONFIG REQUIRED)
find_package(simdjson 3.0 CONFIG REQUIRED)
find_package(fmt 9 CONFIG REQUIRED)
find_package(CURL REQUIRED)
find_package(OpenSSL REQUIRED COMPONENTS Crypto) # SHA-256 of tokenizer vocabularies
find_package(yaml-cpp 0.7 CONFIG REQUIRED) # VCR cassettes
find_package(ZLIB REQUIRED)                # their gzip'd bodies
pkg_check_modules(XXHASH REQUIRED IMPORTED_TARGET libxxhash>=0.8)
pkg_check_modules(RE2 REQUIRED IMPORTED_TARGET re2)
pkg_check_modules(ICU REQUIRED IMPORTED_TARGET icu-uc) # NFC for Qwen's tokenizer

if(CACHEWISE_BUILD_TESTS)
  find_package(doctest 2.4 CONFIG REQUIRED)
endif()

# re2.pc carries no version on Debian 12.
set(re2_shown_version "${RE2_VERSION}")
if(re2_shown_version STREQUAL "0.0.0" OR re2_shown_version STREQUAL "")
  set(re2_shown_version "found")
endif()

set(CACHEWISE_DEP_VERSIONS
  "CLI11 ${CLI11_VERSION}"
  "nlohmann_json ${nlohmann_json_VERSION}"
  "simdjson ${simdjson_VERSION}"
  "fmt ${fmt_VERSION}"
  "xxhash ${XXHASH_VERSION}"
  "re2 ${re2_shown_version}"
  "libcurl ${CURL_VERSION_STRING}"
  "yaml-cpp ${yaml-cpp_VERSION}"
  "zlib ${ZLIB_VERSION_STRING}")
