#!/usr/bin/env bash
# Secrets never leave: runs every command in every output format over a log
# and a template full of key shapes, and fails when any key (or a long piece
# of one) appears on standard output, standard error or in a written file.
# The keys are built here at run time, so that no key sits in the sources.
# Usage: secrets.sh BINARY
set -u
binary=$(realpath "$1")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

rep() { local s=$1 n=$2 out=""; for ((i = 0; i < n; i++)); do out+=$s; done; printf '%s' "$out"; }
anthropic="sk-ant-api03-$(rep Zq8xY2vB7nLm4Kp9Rt6Wd3Hs5Jf1Gc0 3)AA"
openai="sk-proj-$(rep Ab3dE5gH7jK9mN1pQr5tUv7x 2)"
aws="AKIAQ7X2M4N8P5R3T6V9"
github="ghp_$(rep a1B2c3D4e5F6 3)"
slack="xoxb-1234567890-$(rep AbCdEf12 3)"
google="AIza$(rep Sy9X8w7V6u5T4s3R2q1 2)"
jwt="eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.$(rep sIgNaTuRe_Qw3 3)"
bearer="$(rep Kq7Lm2Np9Rs4 3)"
pem_body="MIIEowIBAAKCAQEA$(rep Xy7Zq2Wv9Ut4 5)"
password="Tr0ub4dor3xyzzyQ8w"
keys=("$anthropic" "$openai" "$aws" "$github" "$slack" "$google" "$jwt" "$bearer" "$pem_body"
      "$password")

system="You are Ledger, a bookkeeping assistant. Answer in one paragraph. Use these to call tools: x-api-key: $anthropic; OPENAI_API_KEY=$openai; aws $aws; gh $github; slack $slack; maps ?key=$google; session $jwt; Authorization: Bearer $bearer; DB_PASSWORD=$password\\n-----BEGIN RSA PRIVATE KEY-----\\n$pem_body\\n-----END RSA PRIVATE KEY-----\\n$(rep 'Ledger keeps the books tidy and the answers short. ' 60)"
record() { # id, started_at, user text, cache read
  printf '{"id":"%s","session":"s-%s","started_at":"%s","request":{"model":"claude-sonnet-4-5","max_tokens":256,"system":[{"type":"text","text":"%s","cache_control":{"type":"ephemeral"}}],"messages":[{"role":"user","content":"%s"}]},"response":{"model":"claude-sonnet-4-5","usage":{"input_tokens":20,"cache_read_input_tokens":%s,"cache_creation_input_tokens":%s,"output_tokens":30}}}\n' \
    "$1" "$aws" "$2" "$system" "$3" "$4" "$5"
}
{
  record r1 2026-11-25T09:00:00Z "question one, token=$github" 0 1200
  record r2 2026-11-25T09:01:00Z "question two" 1200 0
  record r3 2026-11-25T09:02:00Z "question three" 0 1200
  # Workflow commands and escape sequences in strings that are printed.
  printf '{"id":"::error file=x.py::injected","session":"\\u001b]0;title\\u0007::warning::s","request":{"model":"claude-sonnet-4-5","system":"::error::sys\\n::error::line","messages":[{"role":"user","content":"x"}]},"response":{"usage":{"input_tokens":20,"output_tokens":3}}}\n'
  # A key in a field of the wrong type: reported, masked.
  printf '{"id":"r4","provider":{"x-api-key":"%s"},"request":{"model":"claude-sonnet-4-5","messages":[]}}\n' "$anthropic"
  printf '{"id":"r5","started_at":"%s","request":{"model":"claude-sonnet-4-5","messages":[]}}\n' "$openai"
} >log.jsonl
printf '{"model":"claude-sonnet-4-5","max_tokens":256,"system":[{"type":"text","text":"%s","cache_control":{"type":"ephemeral"}}],"messages":[{"role":"user","content":"{{question}}"}]}\n' \
  "$system" >template.json

runs=0
check() { # label, files...
  local label=$1 f k
  shift
  for f in "$@"; do
    for k in "${keys[@]}"; do
      # The whole key, or any 12-character piece of its middle.
      if grep -qF -- "$k" "$f" || grep -qF -- "${k:8:12}" "$f"; then
        echo "FAIL: $label: a key (${k:0:6}...) in $(basename "$f")"
        grep -nF -- "${k:8:12}" "$f" | head -3 | cut -c1-200
        failed=1
      fi
    done
  done
}
run() { # label, args...
  local label=$1
  shift
  "$binary" "$@" >out.txt 2>err.txt
  runs=$((runs + 1))
  check "$label" out.txt err.txt
  # No line may be started by log text: only our own workflow commands
  # begin with "::", and no escape character is printed.
  if grep -hvE '^::(error|warning|notice) (file=|title=)' out.txt err.txt | grep -qE '^[[:space:]]*::'; then
    echo "FAIL: $label: a line begins with log text \"::\""
    grep -hvE '^::(error|warning|notice) (file=|title=)' out.txt err.txt | grep -E '^[[:space:]]*::' | head -3
    failed=1
  fi
  if grep -q $'\x1b' out.txt err.txt; then
    echo "FAIL: $label: an escape character is printed"
    failed=1
  fi
}

failed=0
for format in text json markdown sarif github; do
  run "analyze --format $format" analyze log.jsonl --format "$format"
done
for format in text json markdown csv sarif github; do
  run "audit --format $format" audit log.jsonl --format "$format" --details
done
for format in text json; do
  run "chain --format $format" chain log.jsonl --format "$format"
done
run "chain --request" chain log.jsonl --request "$anthropic"
for format in text json sarif github; do
  run "lint --format $format" lint template.json --format "$format"
done
for format in text json; do
  run "suggest --format $format" suggest template.json --format "$format"
  run "suggest log --format $format" suggest log.jsonl --format "$format"
done
run "suggest --diff" suggest template.json --diff
"$binary" analyze log.jsonl --format json >baseline.json 2>/dev/null
run "analyze --baseline" analyze log.jsonl --baseline baseline.json --fail-on info
printf '{"model": "%s", "placeholders": [1]}\n' "$anthropic" >.cachewise.json
run "config show" config show
rm .cachewise.json
check "written baseline" baseline.json

# The finding itself: CW040 names the shape and shows the key masked.
"$binary" lint template.json --format json >lint.json 2>/dev/null
grep -q '"rule": "CW040"' lint.json || { echo "FAIL: lint reports no CW040"; failed=1; }
grep -q 'sk-ant-…AA' lint.json || { echo "FAIL: the masked key is not shown as sk-ant-…AA"; failed=1; }
"$binary" audit log.jsonl --format json >audit.json 2>/dev/null
grep -q '"rule": "CW040"' audit.json || { echo "FAIL: audit reports no CW040"; failed=1; }

# A key in a folder's and a file's name (a log saved under the key that made
# it): every message and output format that names the file masks it, and a
# token in a URL's user part is masked with the URL's password.
named="d-$anthropic"
mkdir "$named"
sed "s|question two|clone https://$github:x-oauth-basic@github.com/o/r|" log.jsonl >"$named/$openai.jsonl"
printf '{"broken\n' >"$named/broken-$anthropic.jsonl"
for format in text json; do
  run "chain named --format $format" chain "$named" --format "$format"
  run "audit named --format $format" audit "$named" --format "$format" --details
done
run "analyze named --format sarif" analyze "$named" --format sarif
run "lint named" lint "$named"
run "no usable request named" audit "$named/broken-$anthropic.jsonl"
run "tokens named" tokens "$named/$openai.jsonl"
run "tokens named --format json" tokens "$named/$openai.jsonl" --format json
cp template.json "$named/tmpl-$github.json"
run "probe named" probe "$named/tmpl-$github.json" --base-url "https://$github:x-oauth-basic@example.com"
run "probe named --format json" probe "$named/tmpl-$github.json" --format json

echo "$runs runs, ${#keys[@]} key shapes checked"
exit $failed
