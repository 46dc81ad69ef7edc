#!/usr/bin/env bash
# Writes that must be whole or not at all: outputs.sh BINARY
#   -o FILE           the report lands in FILE, atomically; on an error FILE
#                     keeps its old content and no temporary is left
#   >/dev/full        a write error on standard output is exit 2, said so
#   suggest --write   in place keeps every record; several inputs need a folder
# Runs from the source root. Prints one line per check; exit 1 on a failure.
set -u
bin=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0

check() { # check NAME WANT_STATUS GOT_STATUS [FIRST_STDERR_LINE WANT_FIRST_LINE]
  local name=$1 want=$2 got=$3
  if [ "$got" != "$want" ]; then
    echo "FAIL: $name: exit status $got, expected $want"
    failed=1
    return
  fi
  if [ $# -ge 5 ] && [ "$4" != "$5" ]; then
    echo "FAIL: $name: first line of standard error: $4"
    echo "      expected: $5"
    failed=1
    return
  fi
  echo "ok: $name"
}

# -o writes the report that standard output would show.
"$bin" audit samples/agent-session.jsonl >"$work/stdout.txt" 2>/dev/null
"$bin" audit samples/agent-session.jsonl -o "$work/report.txt" >"$work/empty.txt" 2>/dev/null
check "-o writes the report" 0 $?
cmp -s "$work/stdout.txt" "$work/report.txt" || { echo "FAIL: -o: report differs"; failed=1; }
[ -s "$work/empty.txt" ] && { echo "FAIL: -o: standard output not empty"; failed=1; }

# A window that selects nothing still writes a report in every format: an
# empty file with exit 0 would read as success with nothing to say.
for format in text json markdown csv sarif github html; do
  "$bin" audit samples/agent-session.jsonl --until 2026-11-01 --format "$format" \
    -o "$work/window.$format" >/dev/null 2>&1
  check "-o of an empty window, $format" 0 $?
  [ -s "$work/window.$format" ] || { echo "FAIL: empty window, $format: empty report"; failed=1; }
done
grep -q '<p>0 requests in \[the start, 2026-11-01' "$work/window.html" ||
  { echo "FAIL: empty window, html: the page does not say it"; failed=1; }

# A failed gate (exit 1) still writes its report: the SARIF file is the result.
"$bin" lint samples/request-template.json --format sarif --fail-on warning \
  -o "$work/lint.sarif" >/dev/null 2>&1
check "-o with a failed gate" 1 $?
grep -q '"version": "2.1.0"' "$work/lint.sarif" || { echo "FAIL: -o with a failed gate: no SARIF"; failed=1; }

# On an error the old file stays, and no temporary is left beside it.
echo "previous report" >"$work/keep.txt"
"$bin" audit "$work/missing.jsonl" -o "$work/keep.txt" 2>"$work/err.txt"
check "-o on an error keeps the old file" 2 $? "$(head -1 "$work/err.txt")" \
  "cachewise: error: $work/missing.jsonl: no such file or directory"
[ "$(cat "$work/keep.txt")" = "previous report" ] || { echo "FAIL: -o: old file changed"; failed=1; }
[ -z "$(find "$work" -name '.cachewise-*')" ] || { echo "FAIL: -o: temporary left"; failed=1; }

# -o over the command's own input: refused, the log untouched.
cp samples/agent-session.jsonl "$work/log.jsonl"
"$bin" audit "$work/log.jsonl" -o "$work/log.jsonl" 2>"$work/err.txt"
check "-o over an input" 2 $? "$(head -1 "$work/err.txt")" \
  "cachewise: error: -o $work/log.jsonl: is also an input of the command; the report would replace it"
cmp -s "$work/log.jsonl" samples/agent-session.jsonl || { echo "FAIL: -o over an input: log changed"; failed=1; }

# -o into a folder that does not exist: refused before the run.
"$bin" audit samples/agent-session.jsonl -o "$work/no/such/dir/r.txt" 2>"$work/err.txt"
check "-o into a missing folder" 2 $? "$(head -1 "$work/err.txt")" \
  "cachewise: error: -o: $work/no/such/dir/r.txt: cannot write in $work/no/such/dir: No such file or directory"

# A full disk on standard output is an error, not a silent success.
if [ -w /dev/full ]; then
  "$bin" audit samples/agent-session.jsonl >/dev/full 2>"$work/err.txt"
  check "standard output on /dev/full" 2 $? "$(head -1 "$work/err.txt")" \
    "cachewise: error: standard output: cannot be written: No space left on device"
  "$bin" --help >/dev/full 2>"$work/err.txt"
  check "--help on /dev/full" 2 $? "$(head -1 "$work/err.txt")" \
    "cachewise: error: standard output: cannot be written: No space left on device"
else
  echo "skipped: /dev/full is not writable here"
fi

# suggest --write in place: atomic, every record kept.
cp samples/agent-session.jsonl "$work/session.jsonl"
"$bin" suggest "$work/session.jsonl" --write "$work/session.jsonl" >/dev/null 2>"$work/err.txt"
check "suggest --write in place" 0 $?
[ "$(wc -l <"$work/session.jsonl")" = "$(wc -l <samples/agent-session.jsonl)" ] ||
  { echo "FAIL: suggest --write in place lost records"; failed=1; }
"$bin" chain "$work/session.jsonl" --format json >/dev/null 2>&1 ||
  { echo "FAIL: suggest --write in place: the rewritten log does not read back"; failed=1; }

# Several inputs and --write FILE: refused, nothing written.
cp samples/request-template.json "$work/a.json"
cp samples/request-template.json "$work/b.json"
cp samples/agent-session.jsonl "$work/a.jsonl"
cp samples/agent-session.jsonl "$work/b.jsonl"
"$bin" suggest "$work/a.jsonl" "$work/b.jsonl" --write "$work/out.json" >/dev/null 2>"$work/err.txt"
check "suggest --write FILE with two inputs" 2 $? "$(head -1 "$work/err.txt")" \
  "cachewise: error: --write $work/out.json: 2 input files need --write DIR, an existing folder that receives each rewritten file"
[ -e "$work/out.json" ] && { echo "FAIL: suggest --write FILE: a file was written"; failed=1; }

# --write DIR: each log of a folder rewritten under the output folder.
mkdir -p "$work/in/day2" "$work/out"
cp samples/agent-session.jsonl "$work/in/one.jsonl"
cp samples/agent-session.jsonl "$work/in/day2/two.jsonl"
"$bin" suggest "$work/in" --write "$work/out" >/dev/null 2>"$work/err.txt"
check "suggest DIR --write DIR" 0 $?
for f in one.jsonl day2/two.jsonl; do
  [ "$(wc -l <"$work/out/$f" 2>/dev/null)" = "$(wc -l <samples/agent-session.jsonl)" ] ||
    { echo "FAIL: suggest --write DIR: $f missing or short"; failed=1; }
done

# Several templates cannot be rewritten as one log: refused, with the reason.
"$bin" suggest "$work/a.json" "$work/b.json" --diff >/dev/null 2>"$work/err.txt"
check "suggest --diff on two templates" 2 $? "$(head -1 "$work/err.txt")" \
  "cachewise: error: --write and --diff take one template at a time (2 were given); a log is rewritten whole"

# GitHub annotations name files from $GITHUB_WORKSPACE.
GITHUB_WORKSPACE=$PWD "$bin" lint "$PWD/samples/request-template.json" --format github \
  >"$work/annotations.txt" 2>/dev/null
if grep -q '^::warning file=samples/request-template.json,' "$work/annotations.txt"; then
  echo "ok: github annotations relative to GITHUB_WORKSPACE"
else
  echo "FAIL: github annotations: file not relative to GITHUB_WORKSPACE"
  failed=1
fi

# suggest - --diff reads the template from standard input.
"$bin" suggest - --diff <tests/cli/data/support-template.json >"$work/diff.txt" 2>"$work/err.txt"
check "suggest - --diff" 0 $?
grep -q '^+++ - (suggested)' "$work/diff.txt" || { echo "FAIL: suggest - --diff: no diff"; failed=1; }

# A log named by its absolute path: ids are relative to the current folder,
# shortened further by the folder they share (named once, in a key), and the
# details table stays aligned with them.
"$bin" audit "$PWD/tests/cli/data/inputs/vcr/support-chat.yaml" --details >"$work/details.txt" 2>/dev/null
check "audit of an absolute path" 0 $?
grep -qx 'Requests (read/write 5m/write 1h/fresh; ids relative to tests/cli/data/inputs/vcr/)' \
  "$work/details.txt" || { echo "FAIL: audit --details: no key to the shortened ids"; failed=1; }
grep -q '^  support-chat.yaml:40         2026-11-20T14:04:02.000Z extends ' \
  "$work/details.txt" || { echo "FAIL: audit --details: id not relative or columns not aligned"; failed=1; }

# The HTML page names no path of the run: inputs given by an absolute path
# outside the current folder and by a relative one each lose their folder,
# and the page is the same from another folder naming the same files.
mkdir -p "$work/other"
case $bin in /*) ;; *) bin=$PWD/$bin ;; esac
cp samples/agent-session.jsonl "$work/other/session.jsonl"
(cd "$work" && "$bin" audit "$OLDPWD/tests/cli/data/inputs/vcr" other --format html \
  >"$work/a.html" 2>/dev/null)
check "html of an absolute and a relative input" 0 $?
grep -q "$PWD" "$work/a.html" && { echo "FAIL: html: the page names $PWD"; failed=1; }
grep -q "$work" "$work/a.html" && { echo "FAIL: html: the page names $work"; failed=1; }
(cd "$work/other" && "$bin" audit "$OLDPWD/tests/cli/data/inputs/vcr" . --format html \
  >"$work/b.html" 2>/dev/null)
grep -q "$PWD" "$work/b.html" && { echo "FAIL: html from another folder names $PWD"; failed=1; }

exit $failed
