#!/usr/bin/env bash
# CTest wrapper for conformance.cjs: skipped (77) without node or the
# reference packages (npm install in tests/tokenize, or NODE_PATH).
#   conformance.sh CACHEWISE_BINARY [MEGABYTES] [TOKENIZER...]
set -u
here=$(cd "$(dirname "$0")" && pwd)
if ! command -v node >/dev/null 2>&1; then
  echo "SKIP: node is not installed"
  exit 77
fi
export NODE_PATH="$here/node_modules${NODE_PATH:+:$NODE_PATH}"
exec node "$here/conformance.cjs" "$@"
