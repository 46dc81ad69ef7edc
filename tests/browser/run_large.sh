#!/usr/bin/env bash
# Browser test of a large report: run_large.sh BINARY REQUESTS STREAMS
#
# Audits a synthetic log (make_log.js) and checks that the HTML report stays
# under 2 MB, says what it aggregated, and loads in chromium with no console
# error and no network request; it prints the page's load time. Speed is a
# benchmark's to judge, not a test's (a loaded CI machine would fail it):
# CACHEWISE_MAX_RENDER_MS=1500 makes it a bound when run by hand. Exits 77
# (skipped) without node or chromium.
set -u
binary=$1
requests=$2
streams=$3
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/browser/find_tools.sh
. "$here/find_tools.sh"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
node "$here/make_log.js" "$requests" "$streams" 8 >"$work/log.jsonl" || exit 1
start=$(date +%s%N)
"$binary" audit "$work/log.jsonl" --format html >"$work/report.html" || exit 1
end=$(date +%s%N)
size=$(stat -c %s "$work/report.html")
echo "audit of $requests requests in $streams streams: $(wc -c <"$work/log.jsonl") bytes of log," \
  "$(((end - start) / 1000000)) ms, a report of $size bytes"
if [ "$size" -ge 2000000 ]; then
  echo "FAIL: the report is $size bytes, over 2 MB"
  exit 1
fi
CACHEWISE_MAX_RENDER_MS=${CACHEWISE_MAX_RENDER_MS:-0} \
  node "$here/check_report.js" "$chromium" "$work/report.html" -
