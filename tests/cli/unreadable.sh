#!/usr/bin/env bash
# A folder or file that cannot be read is reported, one line each, and the
# rest is read: unreadable.sh BINARY
# Root reads everything, so as root the binary runs as nobody (setpriv);
# skipped (exit 77, saying so) where that cannot be done.
set -u
bin=$(realpath "$1")
log=$(realpath "$(dirname "$0")/../../samples/agent-session.jsonl")
work=$(mktemp -d)
trap 'chmod -R u+rwx "$work"; rm -rf "$work"' EXIT
run=("$bin")
if [ "$(id -u)" = 0 ]; then
  run=(setpriv --reuid=65534 --regid=65534 --clear-groups "$bin")
  if ! command -v setpriv >/dev/null || ! "${run[@]}" --version >/dev/null 2>&1; then
    echo "skipped: running as root and the binary cannot run as nobody (setpriv, permissions)"
    exit 77
  fi
fi
dir=$work/logs
chmod 755 "$work"
mkdir -p "$dir/locked"
head -1 "$log" >"$dir/a.jsonl"
cp "$dir/a.jsonl" "$dir/locked/b.jsonl"
sed 's/req_agent_01/req_agent_c/' "$dir/a.jsonl" >"$dir/c.jsonl"
chmod 755 "$dir"
chmod 644 "$dir/a.jsonl"
chmod 000 "$dir/locked" "$dir/c.jsonl"

"${run[@]}" analyze "$dir" >"$work/out" 2>"$work/err"
status=$?
want="cachewise: $dir: 2 files matched (*.json, *.jsonl, *.ndjson, *.sse, *.yaml, *.yml)
cachewise: skipped $dir/locked: cannot list directory: Permission denied
cachewise: skipped $dir/c.jsonl: cannot open: Permission denied"
failed=0
[ "$status" = 0 ] || { echo "FAIL: exit status $status, expected 0"; failed=1; }
if [ "$(cat "$work/err")" != "$want" ]; then
  echo "FAIL: standard error:"; cat "$work/err"; echo "expected:"; echo "$want"; failed=1
fi
grep -q "^cachewise analyze: 1 request in 1 stream" "$work/out" ||
  { echo "FAIL: the readable log was not read:"; head -3 "$work/out"; failed=1; }
grep -q "^2 broken records skipped" "$work/out" ||
  { echo "FAIL: the two unreadable paths are not counted"; failed=1; }
# A path named on the command line that cannot be read is refused with the
# system's reason, and nothing on stdout: refused NAME PATH REASON.
refused() {
  "${run[@]}" analyze "$2" >"$work/out" 2>"$work/err"
  local status=$? want="cachewise: error: $2: $3"
  [ "$status" = 2 ] || { echo "FAIL: $1: exit status $status, expected 2"; failed=1; }
  if [ "$(cat "$work/err")" != "$want" ]; then
    echo "FAIL: $1: standard error:"; cat "$work/err"; echo "expected:"; echo "$want"
    failed=1
  fi
  [ -s "$work/out" ] && { echo "FAIL: $1: output on stdout"; failed=1; }
}
# A folder that cannot be listed: why, not "no file to read in this folder".
refused "locked folder" "$dir/locked" "cannot list directory: Permission denied"
# A link that loops: the system's reason, not "no such file or directory".
ln -s loop "$dir/loop"
refused "looping link" "$dir/loop" "cannot be read: Too many levels of symbolic links"
[ $failed = 0 ] && echo "ok: 1 request read, the locked folder and file reported; a locked folder alone and a looping link are refused with their reasons"
exit $failed
