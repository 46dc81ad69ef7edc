# simdjson's On-Demand API is compiled into our own sources, so its kernel is
# chosen by our compiler flags, not at run time: without flags it is the slow
# scalar "fallback". AUTO picks the best kernel the build machine can run
# (the README's Quick start builds on the machine that runs the tool);
# HASWELL (AVX2) and WESTMERE (SSE4.2 + CLMUL) force one; OFF keeps the
# portable fallback for binaries that must run anywhere.
set(CACHEWISE_SIMD "AUTO" CACHE STRING "simdjson kernel: AUTO, HASWELL, WESTMERE or OFF")
set_property(CACHE CACHEWISE_SIMD PROPERTY STRINGS AUTO HASWELL WESTMERE OFF)

set(cachewise_haswell_flags -mavx2 -mbmi -mbmi2 -mpclmul -mpopcnt -mlzcnt)
set(cachewise_westmere_flags -msse4.2 -mpclmul -mpopcnt)

set(CACHEWISE_SIMD_CHOSEN "fallback")
set(CACHEWISE_SIMD_FLAGS "")
if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64" AND CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
  if(CACHEWISE_SIMD STREQUAL "AUTO")
    include(CheckCXXSourceRuns)
    set(CMAKE_REQUIRED_QUIET ON)
    check_cxx_source_runs("
      int main() {
        __builtin_cpu_init();
        return (__builtin_cpu_supports(\"avx2\") && __builtin_cpu_supports(\"bmi2\") &&
                __builtin_cpu_supports(\"pclmul\")) ? 0 : 1;
      }" CACHEWISE_HOST_HAS_HASWELL)
    check_cxx_source_runs("
      int main() {
        __builtin_cpu_init();
        return (__builtin_cpu_supports(\"sse4.2\") && __builtin_cpu_supports(\"pclmul\")) ? 0 : 1;
      }" CACHEWISE_HOST_HAS_WESTMERE)
    unset(CMAKE_REQUIRED_QUIET)
    if(CACHEWISE_HOST_HAS_HASWELL)
      set(CACHEWISE_SIMD_CHOSEN "haswell")
    elseif(CACHEWISE_HOST_HAS_WESTMERE)
      set(CACHEWISE_SIMD_CHOSEN "westmere")
    endif()
  elseif(CACHEWISE_SIMD STREQUAL "HASWELL")
    set(CACHEWISE_SIMD_CHOSEN "haswell")
  elseif(CACHEWISE_SIMD STREQUAL "WESTMERE")
    set(CACHEWISE_SIMD_CHOSEN "westmere")
  endif()
endif()
if(CACHEWISE_SIMD_CHOSEN STREQUAL "haswell")
  set(CACHEWISE_SIMD_FLAGS ${cachewise_haswell_flags})
elseif(CACHEWISE_SIMD_CHOSEN STREQUAL "westmere")
  set(CACHEWISE_SIMD_FLAGS ${cachewise_westmere_flags})
endif()
target_compile_options(cachewise_settings INTERFACE ${CACHEWISE_SIMD_FLAGS})
