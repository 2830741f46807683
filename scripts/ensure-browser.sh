#!/usr/bin/env bash
# Makes sure a Chromium exists for Playwright. Playwright's own download is
# preferred where it is installed; where browsers cannot be downloaded, as root
# on Debian, the distribution's chromium is installed instead.
set -euo pipefail
python=${1:-.venv/bin/python}

if "$python" -m harness.running.browser --check >/dev/null 2>&1; then
  exit 0
fi
if [ "$(uname -s)" = "Linux" ] && [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "Installing Debian's chromium ..." >&2
  apt-get update -q >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium >/dev/null
  "$python" -m harness.running.browser --check && exit 0
fi
echo "No Chromium found: run '.venv/bin/playwright install chromium' (or install Debian's chromium) and try again." >&2
exit 1
