#!/usr/bin/env bash
# Browser test of one golden HTML report: run_browser.sh BINARY CASE.test [SHOT.png [DARK.png]]
#
# Loads the report that CASE.test holds as its expected output in headless
# chromium (check_report.js) and compares its numbers with the binary's
# --format json on the same arguments. Exits 77 (skipped, CTest
# SKIP_RETURN_CODE) with the reason when node or chromium is missing.
set -u
binary=$1
case_file=$2
shot=${3:-}
dark=${4:-}
here=$(cd "$(dirname "$0")" && pwd)

# shellcheck source=tests/browser/find_tools.sh
. "$here/find_tools.sh"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
args=$(sed -n 's/^# args: //p' "$case_file" | head -1)
case "$args" in
*"--format html"*) ;;
*) echo "FAIL: $case_file does not run --format html"; exit 1 ;;
esac
sed -n '/^# stdout:$/,$p' "$case_file" | tail -n +2 >"$work/report.html"
# shellcheck disable=SC2086
"$binary" ${args/--format html/--format json} >"$work/report.json"
# audit's waterfall replays suggest's placement: its number is suggest's.
if [ "${args%% *}" = audit ]; then
  # The same log for suggest, without audit's own options.
  suggest_args=$(sed -E 's/^audit/suggest/; s/ --by [a-z]+//; s/ --details//' <<<"$args")
  # shellcheck disable=SC2086
  "$binary" ${suggest_args/--format html/--format json} >"$work/suggest.json"
fi
CACHEWISE_SUGGEST_JSON=$work/suggest.json node "$here/check_report.js" "$chromium" "$work/report.html" "$work/report.json" $shot $dark
