#!/usr/bin/env bash
# What the cachewise binary maps at start-up: startup_libraries.sh BINARY HAVE_CUDA
#   readelf -d      the binary needs neither the CUDA runtime nor cuBLAS (they
#                   are the CUDA module's, loaded by bench prefill only), nor
#                   libcurl (loaded by the first request)
#   LD_DEBUG=files  --version, lint and audit --gpu load none of them either
#   module absent   bench prefill says so and exits 77; with --gpu it models
# Exit 77 (skipped) when CUDA is not built: there is no module to keep apart.
# Runs from the source root. Prints one line per check; exit 1 on a failure.
set -u
bin=$1
have_cuda=$2
case "$have_cuda" in ON | on | TRUE | true | 1) ;; *)
  echo "skipped: this build has no CUDA module (CACHEWISE_CUDA off or no toolkit)"
  exit 77
  ;;
esac
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0

needed=$(readelf -d "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
if [ -z "$needed" ]; then
  echo "FAIL: readelf -d $bin listed no NEEDED library"
  exit 1
fi
for lib in libcudart libcublas libcublasLt libcuda.so libcurl; do
  if grep -q "^$lib" <<<"$needed"; then
    echo "FAIL: $bin links $(grep "^$lib" <<<"$needed" | tr '\n' ' ')"
    failed=1
  else
    echo "ok: $bin does not link $lib"
  fi
done
module=$(dirname "$bin")/cachewise-cuda.so
if [ -f "$module" ] && readelf -d "$module" | grep -q 'NEEDED.*libcudart'; then
  echo "ok: the CUDA module next to the binary links the CUDA runtime"
else
  echo "FAIL: no CUDA module linking libcudart at $module"
  failed=1
fi

# What each run maps (the dynamic loader's own account): only bench prefill
# may load the module and the CUDA libraries.
maps_cuda() { # maps_cuda ARGS...: prints the CUDA objects the run loaded
  LD_DEBUG=files "$bin" "$@" 2>&1 >/dev/null | grep -o 'file=[^ ]*' |
    grep -E 'cachewise-cuda|libcudart|libcublas|libcurl' | sort -u | tr '\n' ' '
}
for args in "--version" "lint samples/request-template.json" \
  "audit samples/agent-session.jsonl --model llama-3.1-70b --gpu h200"; do
  # shellcheck disable=SC2086 # the words of args are the arguments
  loaded=$(maps_cuda $args)
  if [ -z "$loaded" ]; then
    echo "ok: cachewise $args loads neither CUDA nor libcurl"
  else
    echo "FAIL: cachewise $args loads $loaded"
    failed=1
  fi
done

# The binary alone, without its module.
cp "$bin" "$work/cachewise"
"$work/cachewise" bench prefill --model llama-3.1-8b --tokens 512 >"$work/out" 2>"$work/err"
status=$?
first=$(head -n 1 "$work/err")
want="cachewise: bench prefill skipped: the CUDA module cachewise-cuda.so was not found"
if [ "$status" = 77 ] && [ "${first#"$want"}" != "$first" ]; then
  echo "ok: without its module, bench prefill is skipped (77) and says why"
else
  echo "FAIL: without its module: exit status $status, standard error: $first"
  failed=1
fi
"$work/cachewise" bench prefill --gpu H200 --model llama-3.1-8b --tokens 512 >"$work/out" 2>"$work/err"
status=$?
if [ "$status" = 0 ] && head -n 1 "$work/out" | grep -q '^modelled, not measured:'; then
  echo "ok: without its module, bench prefill --gpu models"
else
  echo "FAIL: without its module, --gpu: exit status $status: $(head -n 1 "$work/err")"
  failed=1
fi
exit $failed
