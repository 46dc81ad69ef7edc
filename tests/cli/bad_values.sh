#!/usr/bin/env bash
# Every flag with a checked value refuses a bad one before any input is read:
# exit 2 and "cachewise: error: --flag ..." as the first line of standard
# error. The input is a FIFO nobody writes to: a command that opened it
# before checking its flags would block there, and the timeout fails it.
# Usage: bad_values.sh BINARY (run from the source root, for samples/).
set -u
binary=$(realpath "$1")
root=$(pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
mkfifo in.fifo
printf '{"findings": []}' >not-a-result.json
"$binary" lint "$root/samples/request-template.json" --format json >lint-result.json 2>/dev/null
failed=0

# expect WANT_FIRST_LINE_PREFIX ARGS... (IN stands for the FIFO)
expect() {
  local want=$1 args=()
  shift
  for a in "$@"; do args+=("${a/#IN/in.fifo}"); done
  timeout 10 "$binary" "${args[@]}" </dev/null >out.txt 2>err.txt
  local status=$? first
  first=$(head -1 err.txt)
  if [ "$status" = 124 ]; then
    echo "FAIL: $*: still running after 10 s (the input was opened before the check)"
    failed=1
  elif [ "$status" != 2 ]; then
    echo "FAIL: $*: exit status $status, expected 2 ($first)"
    failed=1
  elif [ "${first#"cachewise: error: $want"}" = "$first" ]; then
    echo "FAIL: $*: first line of standard error: $first"
    echo "      expected it to start with:        cachewise: error: $want"
    failed=1
  else
    echo "ok: $* -> $first"
  fi
}

# Global options, with every command that reads a log.
for command in analyze audit chain suggest; do
  expect "--input-format:" "$command" IN --input-format jsonx
  expect "--format:" "$command" IN --format yaml
  expect "--rules:" "$command" IN --rules ./no-such-rules
  expect "--dynamic-fields:" "$command" IN --dynamic-fields ./missing.json
  expect "--prices:" "$command" IN --prices ./missing.json
  expect "--tokenizer-dir:" "$command" IN --tokenize --tokenizer-dir ./no-such-dir
  expect "--fail-on:" "$command" IN --fail-on CW999
  expect "--max-regression:" "$command" IN --max-regression -3
  expect "--max-regression:" "$command" IN --max-regression lots
  expect "--baseline " "$command" IN --baseline ./missing.json
done
expect "--fail-on:" lint IN --fail-on loud
expect "--fail-on:" lint IN --fail-on ,
expect "--baseline " analyze IN --baseline not-a-result.json
expect "--baseline " audit IN --baseline lint-result.json
expect "--format csv:" analyze IN --format csv
expect "--format html:" lint IN --format html
expect "--format markdown:" chain IN --format markdown
expect "--format sarif:" suggest IN --format sarif
expect "--format csv:" tokens IN --format csv
expect "--format github:" probe IN --format github
expect "--format csv:" bench prefill --model llama-3.1-8b --format csv
expect '--tokens: "5000k" is out of range (1 to 4,194,304, or 4096k)' bench prefill --model llama-3.1-8b --tokens 5000k
expect '--tokens: "3000000000k" is out of range' bench prefill --model llama-3.1-8b --tokens 3000000000k
expect "-o:" analyze IN -o ./no-such-dir/report.txt
# The environment is checked like a flag, under its own name.
CACHEWISE_RULES=./no-such-rules expect "\$CACHEWISE_RULES:" analyze IN

# analyze and audit share one --window, with one check.
for command in analyze audit; do
  expect "--window:" "$command" IN --window 0s
  expect "--window:" "$command" IN --window soon
done
expect "--top:" analyze IN --top 0
expect "--top:" analyze IN --top many

expect "--latency:" audit IN --latency -1
expect "--latency:" audit IN --latency later
expect "--since:" audit IN --since yesterday
expect "--until:" audit IN --until 2026-13-01
expect "--by:" audit IN --by week
expect "--policy:" audit IN --policy redis
expect "--block-size:" audit IN --block-size 0
expect "--capacity-blocks:" audit IN --capacity-blocks -5
expect "--interval-tokens:" audit IN --interval-tokens x
expect "--model:" audit IN --model no-such-model --gpu h100
expect "--gpu:" audit IN --model llama-3.1-8b --gpu no-such-gpu
expect "--prefill-profile:" audit IN --model llama-3.1-8b --prefill-profile ./missing.json

expect "--placeholder:" lint IN --placeholder '{{('
expect "--disable:" lint IN --disable CW999
expect "--policy:" suggest IN --policy redis

expect "--tokenizer:" tokens IN --tokenizer no-such-tokenizer
expect "--model " tokens IN --model claude-sonnet-4-5

expect "--times " probe IN --times 0
expect "--retries " probe IN --retries 11
expect "--retry-wait " probe IN --retry-wait -1
expect "--connect-timeout " probe IN --connect-timeout 0
expect "--timeout " probe IN --timeout 0
expect "--var " probe IN --var novalue

# A bad value in .cachewise.json is found as early, named by file and key.
printf '{"window": "0s"}' >.cachewise.json
expect "$work/.cachewise.json: window:" analyze IN
printf '{"disabled_rules": ["CW999"]}' >.cachewise.json
expect "$work/.cachewise.json: disabled_rules:" lint IN
# A file that is not JSON is named at its line and column.
printf '{\n  "window": "1h",\n}\n' >.cachewise.json
expect "$work/.cachewise.json:3:1: not valid JSON: " analyze IN
printf '["window"]' >.cachewise.json
expect "$work/.cachewise.json: expected a JSON object of settings, found array" analyze IN
rm .cachewise.json

[ "$failed" = 0 ] && echo "all bad values refused before the input was read"
exit "$failed"
