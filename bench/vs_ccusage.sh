#!/usr/bin/env bash
# cachewise audit and ccusage daily side by side on one Claude Code projects
# folder: wall time, CPU time and peak memory of each, the ratio, and the
# input / cache-write / cache-read totals of both (which must be equal; see
# tests/ccusage/compare_totals.sh for how they map).
#
#   bench/vs_ccusage.sh CACHEWISE PROJECTS_DIR [RUNS] [-- CACHEWISE_OPTIONS...]
#
# Each tool runs RUNS times (default 3), alternately; the best wall time of
# each is shown with the CPU time and peak memory of that run. ccusage is
# taken from $CCUSAGE, else looked up on PATH, then in build/npm (npm install ccusage@20.0.24
# @ccusage/ccusage-linux-x64@20.0.24); without it (or node, or GNU time) the
# script says so and exits 77. Make a folder with
#   build/bench/cachewise_gen_log --format claude-code --split --out DIR --size-mb N
set -euo pipefail
if [ $# -lt 2 ]; then
  echo "usage: $0 CACHEWISE PROJECTS_DIR [RUNS] [-- CACHEWISE_OPTIONS...]" >&2
  exit 2
fi
cachewise=$1
projects=$(cd "$2" && pwd)
shift 2
runs=3
if [ $# -gt 0 ] && [ "$1" != "--" ]; then
  runs=$1
  shift
fi
[ $# -gt 0 ] && [ "$1" = "--" ] && shift
extra=("$@")
root=$(cd "$(dirname "$0")/.." && pwd)
ccusage=${CCUSAGE:-$(command -v ccusage || true)}
for candidate in "$root/build/npm/node_modules/.bin/ccusage" \
                 "$(dirname "$cachewise")/../npm/node_modules/.bin/ccusage"; do
  if [ -z "$ccusage" ] && [ -x "$candidate" ]; then
    ccusage=$candidate
  fi
done
if [ -z "$ccusage" ] || ! command -v node >/dev/null 2>&1 || [ ! -x /usr/bin/time ]; then
  echo "skipped: needs ccusage (npm install ccusage@20.0.24 @ccusage/ccusage-linux-x64@20.0.24), node and /usr/bin/time"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/config"
ln -s "$projects" "$work/config/projects" # ccusage reads CLAUDE_CONFIG_DIR/projects

# Runs a command under GNU time; appends "wall user+sys peak_kib" to $1.
measure() {
  local into=$1
  shift
  /usr/bin/time -o "$work/time" -f '%e %U %S %M' "$@"
  awk '{ printf "%s %.2f %s\n", $1, $2 + $3, $4 }' "$work/time" >>"$into"
}
for _ in $(seq "$runs"); do
  CLAUDE_CONFIG_DIR="$work/config" measure "$work/ccusage.runs" \
    "$ccusage" daily --json --offline >"$work/theirs.json"
  measure "$work/cachewise.runs" \
    "$cachewise" audit "$projects" --format json --quiet "${extra[@]}" >"$work/ours.json"
done

files=$(find -L "$projects" -name '*.jsonl' | wc -l)
mb=$(du -Lsm "$projects" | cut -f1)
echo "folder: $projects ($files transcripts, $mb MB); best wall time of $runs runs each"
node -e '
const fs = require("fs");
const best = (file) => fs.readFileSync(file, "utf8").trim().split("\n")
  .map((l) => l.split(" ").map(Number)).sort((a, b) => a[0] - b[0])[0];
const [cw, cc] = [best(process.argv[1]), best(process.argv[2])];
const row = (name, a, b, unit, digits) => console.log(
  `${name.padEnd(14)}${a.toFixed(digits).padStart(12)}${b.toFixed(digits).padStart(12)}` +
  `${(a / b).toFixed(2).padStart(10)}  ${unit}`);
console.log(`${"".padEnd(14)}${"cachewise".padStart(12)}${"ccusage".padStart(12)}${"ratio".padStart(10)}`);
row("wall time", cw[0], cc[0], "s", 2);
row("CPU time", cw[1], cc[1], "s (user + sys)", 2);
row("peak memory", cw[2] / 1024, cc[2] / 1024, "MiB", 0);
const theirs = JSON.parse(fs.readFileSync(process.argv[3])).totals;
const ours = JSON.parse(fs.readFileSync(process.argv[4])).totals.reported;
let differ = false;
for (const [name, b, a] of [["input", theirs.inputTokens, ours.fresh],
                             ["cache write", theirs.cacheCreationTokens, ours.write_5m + ours.write_1h],
                             ["cache read", theirs.cacheReadTokens, ours.read]]) {
  console.log(`${name.padEnd(14)}${String(a).padStart(12)}${String(b).padStart(12)}` +
              `${a === b ? "equal" : "DIFFER"}`.padStart(10) + "  tokens");
  differ = differ || a !== b;
}
process.exit(differ ? 1 : 0);
' "$work/cachewise.runs" "$work/ccusage.runs" "$work/theirs.json" "$work/ours.json"
