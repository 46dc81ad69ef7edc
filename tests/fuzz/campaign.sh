#!/usr/bin/env bash
# A long campaign: tests/fuzz/campaign.sh SECONDS HARNESS...
#
# Builds the harnesses once (tests/fuzz/run.sh 1, into $FUZZ_BUILD_DIR,
# default build-fuzz) and runs them all at once for SECONDS each, at the
# priority of the caller, with run.sh's corpora, seeds and regressions.
#
# libFuzzer's -timeout is wall time, so on a machine shared with other work
# (or with more harnesses than cores) -timeout=1 stops a harness on ordinary
# inputs. Here an input slower than one second of wall time is written as
# slow-unit-* and the run goes on (-report_slow_units=1); only three seconds
# stop it (-timeout=3). Replay each slow unit alone (HARNESS -runs=3 INPUT)
# to tell a slow input from a busy machine. Exits 1 when a harness failed or
# left a slow unit, printing which; each harness's log is HARNESS.log and its
# start, end and exit status HARNESS.campaign in the build directory.
set -uo pipefail
cd "$(dirname "$0")/../.."

if [ $# -lt 2 ]; then
  echo "usage: tests/fuzz/campaign.sh SECONDS HARNESS..." >&2
  exit 2
fi
seconds=$1
shift
build=${FUZZ_BUILD_DIR:-build-fuzz}
export FUZZ_BUILD_DIR=$build
tests/fuzz/run.sh 1 "$@" >/dev/null || { echo "campaign: the build or a first run failed" >&2; exit 1; }

corpus_of() {
  case $1 in
    fuzz_loader_*) echo loader ;;
    *) echo "${1#fuzz_}" ;;
  esac
}

one() {
  local h=$1 c
  c=$(corpus_of "$h")
  local seeds=("tests/fuzz/corpus/$c")
  [ -d "tests/fuzz/regressions/$c" ] && seeds+=("tests/fuzz/regressions/$c")
  mkdir -p "$build/corpus/$h" "$build/artifacts/$h"
  echo "start=$(date -u +%FT%TZ)" >"$build/$h.campaign"
  "$build/tests/fuzz/$h" -max_total_time="$seconds" -timeout=3 -report_slow_units=1 \
    -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 -artifact_prefix="$build/artifacts/$h/" \
    "$build/corpus/$h" "${seeds[@]}" >"$build/$h.log" 2>&1
  echo "rc=$? end=$(date -u +%FT%TZ)" >>"$build/$h.campaign"
}

for h in "$@"; do
  one "$h" &
done
wait

failed=0
for h in "$@"; do
  rc=$(sed -n 's/^rc=\([0-9]*\).*/\1/p' "$build/$h.campaign")
  slow=$(find "$build/artifacts/$h" -name 'slow-unit-*' | wc -l)
  echo "$h: exit $rc, $slow slow unit(s); $(grep -E '^stat::number_of_executed_units' "$build/$h.log" | tr -s ' ')"
  if [ "$rc" != 0 ] || [ "$slow" != 0 ]; then
    echo "FAIL: $h (log: $build/$h.log, inputs under $build/artifacts/$h/)"
    failed=1
  fi
done
exit $failed
