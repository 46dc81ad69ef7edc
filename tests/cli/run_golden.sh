#!/usr/bin/env bash
# Runs one golden case: run_golden.sh BINARY CASE.test [--update]
#
# A case file is a header of "# key: value" lines, then "# stdout:" and the
# expected standard output verbatim:
#   # args: chain samples/agent-session.jsonl
#   # status: 0
#   # stderr-contains: skipped      (optional, repeatable)
#   # stderr-first-line: cachewise: error: ...   (optional: the exact first line)
#   # stdin: samples/x.json         (optional: standard input; else /dev/null)
#   # stdout:
#   ...
# The binary runs from the current directory (the source root) with the
# arguments split on spaces. --update rewrites the expected output.
set -u
binary=$1
case_file=$2
update=${3:-}

args=$(sed -n 's/^# args: //p' "$case_file" | head -1)
want_status=$(sed -n 's/^# status: //p' "$case_file" | head -1)
mapfile -t stderr_needles < <(sed -n 's/^# stderr-contains: //p' "$case_file")
want_first_err=$(sed -n 's/^# stderr-first-line: //p' "$case_file" | head -1)
stdin_file=$(sed -n 's/^# stdin: //p' "$case_file" | head -1)
header=$(sed -n '1,/^# stdout:$/p' "$case_file")
out=$(mktemp)
err=$(mktemp)
expected=$(mktemp)
trap 'rm -f "$out" "$err" "$expected"' EXIT
sed -n '/^# stdout:$/,$p' "$case_file" | tail -n +2 >"$expected"
# shellcheck disable=SC2086
"$binary" $args <"${stdin_file:-/dev/null}" >"$out" 2>"$err"
status=$?

if [ "$update" = "--update" ]; then
  { printf '%s\n' "$header"; cat "$out"; } >"$case_file.new"
  sed -i "s/^# status: .*/# status: $status/" "$case_file.new"
  mv "$case_file.new" "$case_file"
  echo "updated $case_file (status $status)"
  exit 0
fi

failed=0
if [ "$status" != "$want_status" ]; then
  echo "FAIL: exit status $status, expected $want_status"
  failed=1
fi
for needle in "${stderr_needles[@]}"; do
  if ! grep -qF -- "$needle" "$err"; then
    echo "FAIL: standard error lacks: $needle"
    failed=1
  fi
done
if [ -n "$want_first_err" ] && [ "$(head -1 "$err")" != "$want_first_err" ]; then
  echo "FAIL: first line of standard error: $(head -1 "$err")"
  echo "      expected:                     $want_first_err"
  failed=1
fi
if ! diff -u "$expected" "$out" >/dev/null; then
  echo "FAIL: standard output differs (- expected, + actual):"
  diff -u "$expected" "$out" | head -80
  failed=1
fi
if [ $failed -ne 0 ]; then
  echo "--- standard error ---"
  head -40 "$err"
fi
exit $failed
