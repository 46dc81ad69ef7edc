#!/usr/bin/env bash
# Fuzzes every harness for a fixed time: tests/fuzz/run.sh [SECONDS] [HARNESS...]
#
# Builds the harnesses with clang, libFuzzer, ASan and UBSan into
# $FUZZ_BUILD_DIR (default build-fuzz) and runs each for SECONDS (default 10)
# from its seed corpus and past crashes. Fails on a crash, a sanitizer
# report, a leak or an input slower than one second; the input is kept under
# $FUZZ_BUILD_DIR/artifacts/HARNESS/ -- copy it to tests/fuzz/regressions/
# once fixed, so that every ctest run replays it. Skips (exit 0, saying so)
# where clang or libFuzzer is missing.
set -euo pipefail
cd "$(dirname "$0")/../.."

seconds=${1:-10}
shift || true
build=${FUZZ_BUILD_DIR:-build-fuzz}
all=(fuzz_loader_auto fuzz_loader_request fuzz_loader_exchange fuzz_loader_sse
     fuzz_loader_claude_code fuzz_baseline fuzz_config fuzz_source_map fuzz_redact)
harnesses=("$@")
[ ${#harnesses[@]} -gt 0 ] || harnesses=("${all[@]}")

if ! command -v clang++ >/dev/null 2>&1; then
  echo "fuzz: skipped: clang++ is not installed (Debian: clang libclang-rt-dev)"
  exit 0
fi
if ! echo 'extern "C" int LLVMFuzzerTestOneInput(const char*, unsigned long) { return 0; }' |
     clang++ -x c++ -fsanitize=fuzzer - -o /dev/null 2>/dev/null; then
  echo "fuzz: skipped: clang++ has no libFuzzer (Debian: libclang-rt-dev)"
  exit 0
fi

sanitize="-fsanitize=address,undefined,fuzzer-no-link -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
  -DCACHEWISE_FUZZ=ON -DCACHEWISE_BUILD_BENCH=OFF -DCMAKE_CXX_FLAGS="$sanitize" >/dev/null
cmake --build "$build" --target "${harnesses[@]}"

corpus_of() {
  case $1 in
    fuzz_loader_*) echo loader ;;
    *) echo "${1#fuzz_}" ;;
  esac
}

failed=0
for h in "${harnesses[@]}"; do
  c=$(corpus_of "$h")
  work="$build/corpus/$h"
  artifacts="$build/artifacts/$h/"
  mkdir -p "$work" "$artifacts"
  seeds=("tests/fuzz/corpus/$c")
  [ -d "tests/fuzz/regressions/$c" ] && seeds+=("tests/fuzz/regressions/$c")
  echo "== $h: ${seconds}s"
  if ! "$build/tests/fuzz/$h" -max_total_time="$seconds" -timeout=1 -rss_limit_mb=2048 \
       -max_len=65536 -print_final_stats=1 -artifact_prefix="$artifacts" \
       "$work" "${seeds[@]}" >"$build/$h.log" 2>&1; then
    echo "FAIL: $h (log: $build/$h.log, input under $artifacts)"
    tail -40 "$build/$h.log"
    failed=1
  fi
  grep -E "^stat::number_of_executed_units|^stat::peak_rss_mb|cov: " "$build/$h.log" | tail -3 || true
done
exit $failed
