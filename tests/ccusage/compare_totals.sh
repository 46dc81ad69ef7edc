#!/usr/bin/env bash
# Compares cachewise's Claude Code totals with ccusage's on a projects folder:
#   compare_totals.sh CACHEWISE PROJECTS_DIR
# Input, cache-write and cache-read tokens must be equal (output differs on
# purpose: cachewise takes each response's final count; see man cachewise,
# INPUTS). ccusage is looked up on PATH, then in build/npm (installed by
# .ci/setup); without it, or without node, the test is skipped (exit 77).
set -euo pipefail
cachewise=$1
projects=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
ccusage=$(command -v ccusage || true)
if [ -z "$ccusage" ] && [ -x "$root/build/npm/node_modules/.bin/ccusage" ]; then
  ccusage="$root/build/npm/node_modules/.bin/ccusage"
fi
if [ -z "$ccusage" ] || ! command -v node >/dev/null 2>&1; then
  echo "skipped: ccusage or node not installed (npm install ccusage@20.0.24 @ccusage/ccusage-linux-x64@20.0.24)"
  exit 77
fi
# ccusage reads CLAUDE_CONFIG_DIR/projects.
config=$(mktemp -d)
trap 'rm -rf "$config"' EXIT
ln -s "$(cd "$projects" && pwd)" "$config/projects"
CLAUDE_CONFIG_DIR="$config" "$ccusage" daily --json --offline >"$config/theirs.json"
"$cachewise" audit "$projects" --format json --quiet >"$config/ours.json"
node -e '
const fs = require("fs");
const theirs = JSON.parse(fs.readFileSync(process.argv[1])).totals;
const ours = JSON.parse(fs.readFileSync(process.argv[2])).totals.reported;
const pairs = [["input", theirs.inputTokens, ours.fresh],
               ["cache write", theirs.cacheCreationTokens, ours.write_5m + ours.write_1h],
               ["cache read", theirs.cacheReadTokens, ours.read]];
let failed = false;
for (const [name, a, b] of pairs) {
  console.log(`${name}: ccusage ${a}, cachewise ${b}`);
  if (a !== b) failed = true;
}
process.exit(failed ? 1 : 0);
' "$config/theirs.json" "$config/ours.json"
