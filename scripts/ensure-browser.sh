#!/usr/bin/env bash
# Makes sure a Chromium exists for Playwright. Playwright's own download is
# preferred where it is installed; where browsers cannot be downloaded, as root
# on Debian, the distribution's chromium-headless-shell is installed instead:
# the lighter headless build Playwright itself runs, which the harness prefers
# to a full chromium already on the machine. libatomic1 comes with it: Playwright's driver, a node binary shipped in
# its wheel, links it, and a minimal Debian lacks it.
set -euo pipefail
python=${1:-.venv/bin/python}

can_apt() {
  [ "$(uname -s)" = "Linux" ] && [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1
}

if options=$("$python" -m harness.running.browser --check 2>/dev/null); then
  # Playwright's own browser, or the headless shell, or a full chromium where nothing can be installed.
  case "$options" in
    *chromium-headless-shell*) exit 0 ;;
    *executable_path*) can_apt || exit 0 ;;
    *) exit 0 ;;
  esac
fi
if can_apt; then
  echo "Installing Debian's chromium-headless-shell ..." >&2
  # One apt at a time: the other set-up steps (make -j) may be installing too (oracle/image.py takes the same lock).
  flock /run/lock/everyday-evals-apt sh -c 'apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends chromium-headless-shell libatomic1' >/dev/null
  "$python" -m harness.running.browser --check && exit 0
fi
echo "No Chromium found: run '.venv/bin/playwright install chromium' (or install Debian's chromium-headless-shell) and try again." >&2
exit 1
