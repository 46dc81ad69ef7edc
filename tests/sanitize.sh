#!/usr/bin/env bash
# The unit and golden CLI tests under AddressSanitizer and
# UndefinedBehaviorSanitizer: tests/sanitize.sh; or under ThreadSanitizer
# (the parse workers, the counting thread, the shared memo and text store):
# tests/sanitize.sh tsan (preset "tsan", build-tsan/, TSAN_OPTIONS
# halt_on_error=1, exit status 99 on a report).
#
# Configures the "asan" preset of CMakePresets.json (build-asan/: Debug with
# -O1, -fsanitize=address,undefined, -fno-sanitize-recover=all, no CUDA, no
# bench), builds cachewise, the unit tests and the loopback server the probe
# test needs, and runs the ctest labels "unit" and "cli" with the preset's
# ASAN_OPTIONS/UBSAN_OPTIONS: halt_on_error=1, leaks detected, exit status 99
# on a report, so a golden case that expects exit 1 still fails on one.
# The two speed bounds are left out ("cli: lint is linear in the template's
# size", "unit:linear time on text built to be slow"): they bound CPU time,
# which the sanitizers multiply; the main ctest run keeps them.
#
# The compiler is CMake's default C++ compiler (g++ from .ci/setup; CXX=clang++
# picks clang). Environment: CMAKE_BUILD_PARALLEL_LEVEL and CTEST_PARALLEL_LEVEL
# (jobs; default: the number of cores).
set -euo pipefail
cd "$(dirname "$0")/.."

jobs=$(nproc 2>/dev/null || echo 2)
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-$jobs}
export CTEST_PARALLEL_LEVEL=${CTEST_PARALLEL_LEVEL:-$jobs}

preset=${1:-asan}
case $preset in
asan | tsan) ;;
*)
  echo "usage: tests/sanitize.sh [asan|tsan]" >&2
  exit 2
  ;;
esac
start=$SECONDS
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset"
built=$SECONDS
ctest --preset "$preset"
echo "sanitize ($preset): build $((built - start)) s, tests $((SECONDS - built)) s"
