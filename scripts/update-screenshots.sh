#!/usr/bin/env bash
# Regenerates the README's screenshots of the HTML report from the golden
# reports of the bundled agent session (tests/cli/cases/audit_agent_session_html.test
# and analyze_agent_session_html.test), running the same browser checks as
# `ctest -L browser` on the way.
#   scripts/update-screenshots.sh [BINARY]     (default build/src/cachewise)
# Needs node and chromium (Debian packages nodejs and chromium).
set -euo pipefail
cd "$(dirname "$0")/.."
binary=${1:-build/src/cachewise}
bash tests/browser/run_browser.sh "$binary" tests/cli/cases/audit_agent_session_html.test \
  docs/images/report-audit-light.png docs/images/report-audit-dark.png
bash tests/browser/run_browser.sh "$binary" tests/cli/cases/analyze_agent_session_html.test \
  docs/images/report-analyze-light.png
