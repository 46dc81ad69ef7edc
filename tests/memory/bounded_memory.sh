#!/usr/bin/env bash
# analyze and audit run in bounded memory: a generated log of SIZE MB (default
# 200) in both formats (one exchange JSONL file, one Claude Code folder) is
# read under `ulimit -v` of LIMIT MiB (default 256, the memory goal of issue
# 14). Before requests were kept as shared paths and texts could go to a
# temporary file, the 200 MB Claude Code folder needed 365 MB (analyze) and
# 388 MB (audit) resident without CUDA, 554 MB with it.
# ulimit -v caps address space, not residence: malloc's per-thread arenas
# reserve 64 MiB each, so they are capped at two.
# Usage: bounded_memory.sh BINARY GENERATOR [SIZE_MB] [LIMIT_MIB]
# Exits 77 (skipped) when the generator was not built.
set -u
binary=$1
generator=$2
size=${3:-200}
limit=${4:-256}
if [ ! -x "$generator" ]; then
  echo "skipped: $generator was not built (CACHEWISE_BUILD_BENCH=OFF)"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$generator" --out "$work/exchange.jsonl" --size-mb "$size" >/dev/null || exit 1
"$generator" --format claude-code --split --out "$work/projects" --size-mb "$size" >/dev/null ||
  exit 1
failed=0
for command in analyze audit; do
  for log in "$work/exchange.jsonl" "$work/projects"; do
    (
      ulimit -v $((limit * 1024))
      export MALLOC_ARENA_MAX=2
      "$binary" "$command" "$log" >"$work/out.txt" 2>"$work/err.txt"
    )
    status=$?
    lines=$(wc -l <"$work/out.txt")
    echo "$command $(basename "$log") ($size MB) under ${limit} MiB: exit $status, $lines lines"
    if [ "$status" -ne 0 ] || [ "$lines" -eq 0 ]; then
      tail -5 "$work/err.txt"
      failed=1
    fi
  done
done
exit $failed
