#!/usr/bin/env bash
# The same output, byte for byte, whatever the number of threads: chain
# (token counts and their source), analyze and audit (text and JSON),
# standard output and standard error, with --jobs 1 (one parsing thread;
# exact counts on a counting thread of their own) against --jobs 2 and 4
# (parse workers, which also make the exact counts), on the samples and the
# OpenAI, DeepSeek and Qwen fixtures.
#   thread_counts.sh BINARY
set -u
bin=$(realpath "$1")
cd "$(dirname "$0")/../.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
inputs=(samples samples/providers tests/cli/data/qwen-chat.jsonl
        tests/cli/data/short-openai-prompt.jsonl tests/cli/data/deepseek-tool-added.jsonl)
failed=0
runs=0
for input in "${inputs[@]}"; do
  for cmd in "chain" "analyze" "analyze --format json" "audit" "audit --format json --details"; do
    # shellcheck disable=SC2086 # $cmd is a command and its options
    "$bin" --jobs 1 $cmd "$input" >"$work/out1" 2>"$work/err1"
    s1=$?
    for jobs in 2 4; do
      # shellcheck disable=SC2086
      "$bin" --jobs $jobs $cmd "$input" >"$work/out" 2>"$work/err"
      s=$?
      runs=$((runs + 1))
      if [ $s != $s1 ] || ! cmp -s "$work/out1" "$work/out" || ! cmp -s "$work/err1" "$work/err"; then
        echo "FAIL: $cmd $input: --jobs $jobs differs from --jobs 1 (exit $s against $s1)"
        diff "$work/out1" "$work/out" | head -5
        diff "$work/err1" "$work/err" | head -5
        failed=$((failed + 1))
      fi
    done
    if [ ! -s "$work/out1" ]; then
      echo "FAIL: $cmd $input printed nothing"
      failed=$((failed + 1))
    fi
  done
done
echo "$runs runs compared with --jobs 1, $failed differ"
[ $failed = 0 ]
