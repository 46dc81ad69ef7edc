#!/usr/bin/env bash
# The project's "model" (.cachewise.json) picks the tokenizer of `tokens`
# as it picks the model lint and suggest read requests as; a model without
# a public tokenizer leaves o200k_base and says so: config_model.sh BINARY
set -u
bin=$(realpath "$1")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
printf 'héllo wörld 你好\n' >text.txt
failed=0
check() { # what, got, want
  if [ "$2" != "$3" ]; then
    echo "FAIL: $1:"; echo "  got:  $2"; echo "  want: $3"; failed=1
  fi
}

echo '{"model":"deepseek-chat"}' >.cachewise.json
check "configured deepseek-chat" "$("$bin" tokens text.txt 2>&1)" \
  "text.txt: 8 tokens (deepseek_v3 for deepseek-chat, 21 bytes)"
check "--tokenizer wins over the configuration" "$("$bin" tokens text.txt --tokenizer cl100k_base 2>&1)" \
  "text.txt: 10 tokens (cl100k_base, 21 bytes)"

echo '{"model":"claude-sonnet-4-5"}' >.cachewise.json
check "configured Claude model: stdout" "$("$bin" tokens text.txt 2>/dev/null)" \
  "text.txt: 8 tokens (o200k_base, 21 bytes)"
check "configured Claude model: stderr" "$("$bin" tokens text.txt 2>&1 >/dev/null)" \
  "cachewise: the configured model claude-sonnet-4-5 has no public tokenizer: counted with o200k_base (give --tokenizer or --model)"
[ $failed = 0 ] && echo "ok: the configured model picks the tokenizer, or says why it cannot"
exit $failed
