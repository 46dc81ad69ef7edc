#!/usr/bin/env bash
# probe through the binary against the loopback fake provider:
#   probe_live.sh CACHEWISE FAKE_PROVIDER_SERVER
# Starts the server (127.0.0.1, ephemeral port), runs probe in its modes and
# checks the outputs, the exit statuses and that the key is never printed.
set -u
binary=$1
server_binary=$2
work=$(mktemp -d)
server_pid=
stop_server() {
  if [ -n "$server_pid" ]; then
    kill "$server_pid" 2>/dev/null
    wait "$server_pid" 2>/dev/null
    server_pid=
  fi
}
trap 'stop_server; rm -rf "$work"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }

start_server() { # faults...
  stop_server
  rm -f "$work/port"
  "$server_binary" "$work/port" "$@" &
  server_pid=$!
  for _ in $(seq 1 100); do
    [ -s "$work/port" ] && break
    sleep 0.05
  done
  port=$(cat "$work/port")
  base="http://127.0.0.1:$port"
}

export ANTHROPIC_API_KEY=sk-ant-cli-test-secret-0123456789
export OPENAI_API_KEY=$ANTHROPIC_API_KEY
unset https_proxy HTTPS_PROXY http_proxy ALL_PROXY all_proxy
export NO_PROXY=127.0.0.1

start_server
# A dry run: the plan, nothing sent (the server would have answered).
"$binary" probe samples/request-template.json --base-url "$base" >"$work/dry.txt" 2>"$work/dry.err"
[ $? -eq 0 ] || fail "dry run exit status"
grep -q "dry run: nothing was sent; add --yes to send" "$work/dry.txt" || fail "dry run text"
grep -q "x-api-key: <ANTHROPIC_API_KEY, masked>" "$work/dry.txt" || fail "masked key in the plan"

# Two calls: a write, then a read equal to the prediction.
"$binary" probe samples/request-template.json --base-url "$base" --yes --diagnostics \
  --record "$work/record.jsonl" >"$work/sent.txt" 2>"$work/sent.err"
[ $? -eq 0 ] || { fail "probe --yes exit status"; cat "$work/sent.err"; }
grep -qE "^  1  HTTP 200 .*read       0 · write 5m   4,956" "$work/sent.txt" || fail "first call writes"
grep -qE "^  2  HTTP 200 .*read   4,956 · write 5m       0" "$work/sent.txt" || fail "second call reads"
[ "$(grep -c "= reported" "$work/sent.txt")" -eq 2 ] || fail "prediction equals the report"
grep -q "diagnostics: no miss" "$work/sent.txt" || fail "diagnostics on the repeat"
grep -q "2 calls · 1 connection · 0 findings" "$work/sent.txt" || fail "summary line"

# JSON, and the record audits to the same reads and writes.
"$binary" probe samples/request-template.json --base-url "$base" --yes --format json \
  >"$work/sent.json" 2>/dev/null || fail "json exit status"
# (grep, not a JSON tool: the CI image has none) The server's cache is warm
# from the run before, so both calls read 4,956 tokens; the prediction, from
# this run's calls alone, expects the first to write: CW031, warmed elsewhere.
grep -q '"schema_version": 1' "$work/sent.json" || fail "json schema_version"
grep -q '"dry_run": false' "$work/sent.json" || fail "json dry_run"
[ "$(grep -c '"read": 4956' "$work/sent.json")" -eq 3 ] || fail "json reads (2 calls, 1 predicted)"
grep -q '"rule": "CW031"' "$work/sent.json" || fail "json CW031 for the warm first call"
grep -q '"kind": "CW025"' "$work/sent.json" || fail "json CW031 kind CW025"
grep -q '"write_1h": 0' "$work/sent.json" || fail "json usage split"
grep -q '"ttft_seconds":' "$work/sent.json" || fail "json ttft_seconds"
"$binary" audit "$work/record.jsonl" --format json >"$work/audit.json" 2>/dev/null ||
  fail "audit of the record"
grep -q '"read": 4956' "$work/audit.json" || fail "the record audits to the same reads"
grep -q '"write_5m": 4956' "$work/audit.json" || fail "the record audits to the same writes"

# Keys: in no output, no record.
if grep -rq "$ANTHROPIC_API_KEY" "$work"/*.txt "$work"/*.err "$work"/*.json "$work/record.jsonl"; then
  fail "the API key appears in an output"
fi

# Exact token counts for lint, suggest and chain; the second lint makes no call.
export XDG_CACHE_HOME="$work/xdg"
"$binary" lint samples/request-template.json --exact-tokens --base-url "$base" >"$work/lint1.txt"
grep -q "exact counts: 1 prefix, 2 calls to count tokens, 0 from the cache" "$work/lint1.txt" ||
  fail "lint --exact-tokens: $(tail -1 "$work/lint1.txt")"
grep -q "CW012" "$work/lint1.txt" && fail "lint --exact-tokens still reports CW012"
"$binary" lint samples/request-template.json --exact-tokens --base-url "$base" >"$work/lint2.txt"
grep -q "exact counts: 1 prefix, 0 calls to count tokens, 2 from the cache" "$work/lint2.txt" ||
  fail "second lint --exact-tokens: $(tail -1 "$work/lint2.txt")"
"$binary" chain samples/request-template.json --exact-tokens --base-url "$base" \
  >"$work/chain.txt" 2>"$work/chain.err" || fail "chain --exact-tokens"
grep -q "exact counts: 3 prefixes" "$work/chain.err" || fail "chain --exact-tokens: $(cat "$work/chain.err")"
grep -q "system\[1\] .* 4,956  cal" "$work/chain.txt" || fail "chain --exact-tokens pins system[1]"
"$binary" suggest samples/request-template.json --exact-tokens --base-url "$base" \
  >"$work/suggest.txt" 2>"$work/suggest.err" || fail "suggest --exact-tokens"
grep -q "exact counts: 3 prefixes" "$work/suggest.err" || fail "suggest --exact-tokens: $(cat "$work/suggest.err")"
"$binary" suggest samples/agent-session.jsonl --exact-tokens --base-url "$base" \
  >/dev/null 2>"$work/suggest-log.err"
[ $? -eq 2 ] || fail "suggest --exact-tokens on a log: expected status 2"

# A call that fails leaves no --record file behind that this run created.
"$binary" probe samples/request-template.json --base-url "http://127.0.0.1:$(( port + 2 ))" \
  --yes --times 1 --record "$work/failed.jsonl" >/dev/null 2>&1
[ -e "$work/failed.jsonl" ] && fail "a failed probe left its empty --record file"

# Retries: 429 with retry-after, then success.
start_server 429:1
"$binary" probe samples/request-template.json --base-url "$base" --yes --times 1 \
  >"$work/retry.txt" 2>&1 || fail "probe after a 429"
grep -q "retried: HTTP 429 with retry-after, waited 1.0 s" "$work/retry.txt" || fail "retry line"

# Proxies as libcurl reads them: an unreachable http_proxy is bypassed for
# NO_PROXY hosts, and used for the others (the fake provider answers as the
# proxy; the target host is never resolved).
start_server
dead=$(( port + 1 ))
http_proxy="http://127.0.0.1:$dead" NO_PROXY=127.0.0.1 "$binary" probe \
  samples/request-template.json --base-url "$base" --yes --times 1 >/dev/null 2>"$work/noproxy.err" ||
  fail "NO_PROXY not honoured: $(cat "$work/noproxy.err")"
http_proxy="$base" NO_PROXY= no_proxy= "$binary" probe samples/request-template.json \
  --base-url http://api.proxied.invalid --yes --times 1 >"$work/proxy.txt" 2>"$work/proxy.err" ||
  fail "http_proxy not used: $(cat "$work/proxy.err")"
grep -q "POST http://api.proxied.invalid/v1/messages" "$work/proxy.txt" || fail "proxied URL"

# Provider errors past the retries: exit 3 with the status and the message.
start_server 500 500
"$binary" probe samples/request-template.json --base-url "$base" --yes --retries 1 \
  >"$work/err.txt" 2>"$work/err.err"
status=$?
[ $status -eq 3 ] || fail "exit status $status after server errors, expected 3"
grep -q "HTTP 500 from $base after 2 tries: api_error: Internal server error" "$work/err.err" ||
  fail "error message: $(cat "$work/err.err")"
stop_server

# No server: exit 3, the connection error in words.
"$binary" probe samples/request-template.json --base-url "$base" --yes >/dev/null 2>"$work/conn.err"
status=$?
[ $status -eq 3 ] || fail "exit status $status without a server, expected 3"
grep -q "could not connect to $base" "$work/conn.err" || fail "connection error: $(cat "$work/conn.err")"

# Usage errors: exit 2.
"$binary" probe samples/request-template.json --times 0 >/dev/null 2>"$work/usage.err"
[ $? -eq 2 ] || fail "--times 0 exit status"
"$binary" probe samples/request-template.json --var nosuch=1 >/dev/null 2>"$work/usage.err"
[ $? -eq 2 ] || fail "--var of no placeholder exit status"
grep -q "the template has no {{nosuch}} placeholder" "$work/usage.err" || fail "--var message"
if grep -rq "$ANTHROPIC_API_KEY" "$work"/*.txt "$work"/*.err; then
  fail "the API key appears in an output"
fi
exit $failed
