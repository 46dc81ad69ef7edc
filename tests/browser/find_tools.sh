# Sourced by the browser tests: sets $chromium, or exits 77 (skipped, CTest
# SKIP_RETURN_CODE) saying which tool is missing.
if ! command -v node >/dev/null 2>&1; then
  echo "skipped: node is not installed (the browser tests drive chromium from node)"
  exit 77
fi
chromium=${CACHEWISE_CHROMIUM:-}
if [ -z "$chromium" ]; then
  for candidate in chromium chromium-browser google-chrome; do
    if command -v "$candidate" >/dev/null 2>&1; then
      chromium=$(command -v "$candidate")
      break
    fi
  done
fi
if [ -z "$chromium" ]; then
  echo "skipped: chromium is not installed (Debian package chromium; .ci/setup installs it)"
  exit 77
fi
