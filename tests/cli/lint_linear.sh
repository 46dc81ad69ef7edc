#!/usr/bin/env bash
# lint and the dynamic-field scan are linear in the template's size: a
# 750 KB template holding 20,000 dates (17 s when they were quadratic) must
# lint in under LIMIT seconds of CPU time (default 2; 0.28 s measured with
# --format json, 0.10 s in text, on the 2-core development machine).
# CPU time, not wall time: a loaded CI runner must not fail it.
# Usage: lint_linear.sh BINARY [LIMIT]
set -u
binary=$1
limit=${2:-2}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# One system text of 20,000 lines, each with a date (JSON-escaped newlines).
awk 'BEGIN {
  printf "{\"model\": \"claude-sonnet-4-5\", \"max_tokens\": 256, \"system\": [{\"type\": \"text\", \"text\": \""
  for (i = 0; i < 20000; i++)
    printf "Entry %d: 2026-11-%02dT%02d:%02d:12Z ok.\\n", i, 1 + i % 28, i % 24, i % 60
  printf "\", \"cache_control\": {\"type\": \"ephemeral\"}}], \"messages\": [{\"role\": \"user\", \"content\": \"Summarise.\"}]}\n"
}' >"$work/big.json"
size=$(stat -c %s "$work/big.json")
TIMEFORMAT='%U %S'
cpu=$({ time "$binary" lint "$work/big.json" --format json >"$work/out.json" 2>"$work/err.txt"; } 2>&1)
"$binary" lint "$work/big.json" --format json >/dev/null 2>&1
status=$? # lint exits 1 on findings at --fail-on error; 2 is a failure
elapsed=$(awk -v t="$cpu" 'BEGIN { split(t, p, " "); printf "%.3f", p[1] + p[2] }')
findings=$(grep -c '"rule": "CW010"' "$work/out.json")
echo "lint of $size bytes, $findings CW010 findings: ${elapsed}s of CPU"
if [ "$status" -gt 1 ]; then
  cat "$work/err.txt"
  exit 1
fi
if [ "$findings" -lt 20000 ]; then
  echo "FAIL: expected a CW010 finding per date"
  exit 1
fi
if awk -v e="$elapsed" -v l="$limit" 'BEGIN { exit !(e > l) }'; then
  echo "FAIL: slower than ${limit}s"
  exit 1
fi
